/**
 * Identity: turning what the user's `key` function returned into the
 * idempotency record id `consumer#businessKey`.
 */
import { MissingKeyError } from './errors.js';
import { sha256 } from './hashing.js';

/** What a `key` function may return: a string or number; anything else means "no key". */
export type BusinessKey = string | number;

/** DynamoDB's partition key limit is 2048 bytes; stay well under it. */
export const MAX_KEY_BYTES = 1024;

/**
 * Checks a business key and returns it as a string.
 * @throws MissingKeyError for undefined, null, empty, non-string/number, or over-long keys.
 */
export function normalizeKey(raw: unknown): string {
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  if (typeof raw !== 'string') {
    throw new MissingKeyError(`The key function returned ${raw === null ? 'null' : typeof raw}, not a string or number.`);
  }
  if (raw.length === 0) throw new MissingKeyError('The key function returned an empty string.');
  if (Buffer.byteLength(raw) > MAX_KEY_BYTES) {
    throw new MissingKeyError(`The business key is longer than ${MAX_KEY_BYTES} bytes; use hashKeys or a shorter key.`, {
      key: raw.slice(0, 64),
    });
  }
  return raw;
}

/** `consumer#businessKey`, with the business key replaced by its SHA-256 when `hash` is set. */
export function recordId(consumer: string, businessKey: string, hash: boolean): string {
  return `${consumer}#${hash ? sha256(businessKey) : businessKey}`;
}

/** Which partition of the sparse in-flight index a record id lands in. */
export function inflightShard(id: string, shards: number): string {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return `p${h % shards}`;
}
