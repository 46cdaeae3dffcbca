/** Hashing: payload fingerprints and optional hashing of business keys (node:crypto only). */
import { createHash } from 'node:crypto';
import { canonicalEncoding, EncodedPayload, node } from './encoding.js';
import { encodeJsonTextFast } from './json-text.js';
import { numericText } from './numbers.js';

export { canonicalEncoding } from './encoding.js';

/** SHA-256 hex of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * JSON with object keys sorted at every level, for identities and messages a person reads (transaction item keys).
 * Not injective (a map can spell a bigint's `{ $n }` form): payload fingerprints use {@link canonicalEncoding}.
 */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, function canonical(this: unknown, key: string, v: unknown) {
      // The raw value, before toJSON: Buffers and typed arrays would become index maps, ArrayBuffers `{}` (all alike).
      const raw = (this as Record<string, unknown>)[key];
      const special = exactForm(raw);
      if (special !== undefined) return special;
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }) ?? 'undefined'
  );
}

/** Values JSON cannot tell apart or cannot write: big numbers and binary, in an exact form. */
function exactForm(raw: unknown): { $n: string } | { $b: string } | undefined {
  if (typeof raw === 'bigint') return { $n: raw.toString() };
  if (raw instanceof ArrayBuffer) return { $b: Buffer.from(raw).toString('base64') };
  if (ArrayBuffer.isView(raw)) return { $b: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') };
  // util-dynamodb's NumberValue (wrapNumbers): plain numbers stay as JSON writes them.
  const text = typeof raw === 'object' ? numericText(raw) : undefined;
  return text === undefined ? undefined : { $n: text };
}

/** Prefix of the current fingerprint form (0.1.0 wrote a bare SHA-256 of another encoding; two forms are never compared). */
const PAYLOAD_HASH_PREFIX = 'v2:';

/**
 * Fingerprint of a payload: `v2:` and the SHA-256 of its injective canonical encoding. Two payloads share it exactly
 * when they are the same value: key order does not count, every other difference does (the text `'{"a":1}'` is not the
 * object `{ a: 1 }`); numbers compare by exact decimal value, binary by bytes, sets as sets.
 */
export function payloadHash(payload: unknown): string {
  return PAYLOAD_HASH_PREFIX + sha256(canonicalEncoding(payload));
}

/**
 * The default payload of an SQS record, from its body: a JSON body (RFC 8259, any value) is the JSON value it holds,
 * every number exactly as written; any other body is its text, a kind of its own (the body `abc` is neither the JSON
 * body `"abc"` nor the string `'abc'`).
 */
export function bodyPayload(body: string): EncodedPayload {
  return new EncodedPayload(encodeJsonTextFast(body) ?? node.text(body));
}

/** The form a fingerprint was written in: its prefix up to `:`, or `''` (0.1.0 and custom strings). */
function formOf(hash: string): string {
  return hash.slice(0, hash.indexOf(':') + 1);
}

/**
 * Whether a delivery's payload differs from the one recorded under its key: only when both fingerprints are there, of
 * the same form, and differ (a record written by 0.1.0 is not compared: the upgrade alone must not flag it).
 */
export function payloadsDiffer(hash: string | undefined, recorded: string | undefined): boolean {
  if (hash === undefined || recorded === undefined) return false;
  return formOf(hash) === formOf(recorded) && hash !== recorded;
}
