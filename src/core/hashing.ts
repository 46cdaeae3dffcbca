/**
 * Hashing: payload fingerprints and optional hashing of business keys.
 * Uses node:crypto only (no AWS), so it stays a pure core module.
 */
import { createHash } from 'node:crypto';
import { numericText } from './numbers.js';

/** SHA-256 hex of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * JSON with object keys sorted at every level, so two payloads that differ
 * only in key order hash the same.
 */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, function canonical(this: unknown, key: string, v: unknown) {
      // The raw value, before toJSON: Buffers and typed arrays would otherwise
      // become index maps, and ArrayBuffers `{}` (all alike).
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

/**
 * Fingerprint of a payload: SHA-256 of its canonical JSON (strings are hashed as they are).
 *
 * @example
 * ```ts
 * import { payloadHash } from 'effectively-once';
 * payloadHash({ orderNo: 'A-1', total: 10 }) === payloadHash({ total: 10, orderNo: 'A-1' }); // true: key order is ignored
 * ```
 */
export function payloadHash(payload: unknown): string {
  return sha256(typeof payload === 'string' ? payload : canonicalJson(payload));
}
