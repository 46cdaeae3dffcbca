/** Identity: what the user's `key` function returned, as the idempotency record id `consumer#businessKey`. */
import { KeyTooLongError, MissingKeyError } from './errors.js';
import { sha256 } from './hashing.js';

/** What a `key` function may return: a string or number; anything else means "no key". */
export type BusinessKey = string | number;

/** DynamoDB's partition key limit is 2048 bytes; stay well under it. */
export const MAX_KEY_BYTES = 1024;

/** A UTF-16 code unit of a surrogate pair that has no partner (in `u` mode a pair is one code point and does not match). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Checks a business key and returns it as a string, compared as given (no Unicode normalisation, no trimming).
 * @throws MissingKeyError for undefined, null, empty, non-string/number keys, and strings with a lone surrogate:
 *   UTF-8 (DynamoDB's strings, SHA-256's input) turns each into U+FFFD, so two such keys would share one record.
 */
export function normalizeKey(raw: unknown): string {
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  if (typeof raw !== 'string') {
    throw new MissingKeyError(`The key function returned ${raw === null ? 'null' : typeof raw}, not a string or number.`);
  }
  if (raw.length === 0) throw new MissingKeyError('The key function returned an empty string.');
  if (LONE_SURROGATE.test(raw)) {
    throw new MissingKeyError('The business key is not well-formed Unicode (it holds a lone surrogate), so it cannot be stored as it is.', {
      key: raw.slice(0, 64),
    });
  }
  return raw;
}

/**
 * `consumer#businessKey`, with the business key replaced by its SHA-256 when `hash` is set.
 * @throws KeyTooLongError when an unhashed key is longer than {@link MAX_KEY_BYTES} in UTF-8.
 */
export function recordId(consumer: string, businessKey: string, hash: boolean): string {
  if (hash) return `${consumer}#${sha256(businessKey)}`;
  if (Buffer.byteLength(businessKey) > MAX_KEY_BYTES) {
    throw new KeyTooLongError(`The business key is longer than ${MAX_KEY_BYTES} bytes; use hashKeys or a shorter key.`, {
      key: businessKey.slice(0, 64),
    });
  }
  return `${consumer}#${businessKey}`;
}
