/** One delivery's business key and payload fingerprint; anything wrong makes the record invalid on its own, never throws. */
import {
  InvalidRecordError,
  KeyFunctionError,
  type MissingKeyError,
  PayloadFunctionError,
  PayloadMismatchError,
  errorParts,
  type ErrorContext,
} from './errors.js';
import { payloadHash, payloadsDiffer } from './hashing.js';
import { normalizeKey, type BusinessKey } from './keys.js';

/** A delivery whose key and payload fingerprint were extracted. */
export interface Prepared {
  readonly key: string;
  /** Absent when payload checking is off. */
  readonly payloadHash?: string;
}

/** What the user's functions may do with a delivery. */
export interface Extractors<TInput> {
  readonly key: (input: TInput) => BusinessKey | undefined | null;
  /** The part of the delivery whose change under the same key is flagged; `false` turns the check off. */
  readonly payload: ((input: TInput) => unknown) | false;
}

/** Extracts key and payload hash, or returns the typed reason it cannot. */
export function prepare<TInput>(input: TInput, extractors: Extractors<TInput>): Prepared | InvalidRecordError {
  let raw: unknown;
  try {
    raw = extractors.key(input);
  } catch (err) {
    if (err instanceof InvalidRecordError) return err;
    return new KeyFunctionError(`The key function threw: ${errorParts(err).message}`, { cause: err });
  }
  let key: string;
  try {
    key = normalizeKey(raw);
  } catch (err) {
    return err as MissingKeyError; // normalizeKey throws nothing else
  }
  if (extractors.payload === false) return { key };
  try {
    return { key, payloadHash: payloadHash(extractors.payload(input)) };
  } catch (err) {
    if (err instanceof InvalidRecordError) return err;
    return new PayloadFunctionError(`The payload function threw: ${errorParts(err).message}`, { cause: err, key });
  }
}

/**
 * What every mismatch's message goes on to say: the usual cause is not a reused key but a re-send whose body differs
 * in a field that does not matter (a `sentAt`), and the fix is the option that narrows the payload. It is in the
 * error's message, so it reaches the log line, the DLQ copy's `eo-reason` and a caller of `idempotent()` alike.
 */
export const PAYLOAD_MISMATCH_HINT =
  'If re-sends of one event differ only in fields that do not matter (a sentAt, a trace id), set the option payload to a function that returns the fields that do; see docs/options.md#the-payload-check';

/** The error for a delivery whose payload differs from the one recorded under its key (see `payloadsDiffer`), if it does. */
export function payloadMismatch(
  hash: string | undefined,
  recordedHash: string | undefined,
  message: string,
  context: ErrorContext,
): PayloadMismatchError | undefined {
  if (!payloadsDiffer(hash, recordedHash)) return undefined;
  return new PayloadMismatchError(`${message} ${PAYLOAD_MISMATCH_HINT}.`, context);
}
