/**
 * Hashing: payload fingerprints and optional hashing of business keys.
 * Uses node:crypto only (no AWS), so it stays a pure core module.
 */
import { createHash } from 'node:crypto';

/** SHA-256 hex of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * JSON with object keys sorted at every level, so two payloads that differ
 * only in key order hash the same.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  }) ?? 'undefined';
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
