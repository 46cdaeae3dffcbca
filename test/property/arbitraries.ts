/**
 * Generators shared by the property files: stored idempotency records whose
 * times sit around a given `now`, so every branch of the claim rule and every
 * boundary (lease end, retention end, and one millisecond / second either
 * side) is reached within a few hundred runs.
 */
import fc from 'fast-check';
import type { IdempotencyRecord } from '../../src/engine/record.js';

/** Offsets around a boundary, with the boundary itself and its neighbours weighted in. */
export const around = (range: number): fc.Arbitrary<number> => fc.oneof(fc.integer({ min: -range, max: range }), fc.constantFrom(-1, 0, 1));

/** A payload fingerprint, or none (payload checking off); few values so equal ones are common. */
export const hashArb = fc.option(fc.constantFrom('h-a', 'h-b', 'h-c'), { nil: undefined });

/** A record's body defect, mostly none: 1 in 10 has a body that is not JSON, 1 in 10 no key. */
export const badBodyArb = fc.constantFrom(...Array.from({ length: 8 }, () => undefined), 'nojson' as const, 'nokey' as const);

/** Any stored record under `id`; `leaseUntil` is sometimes missing, as on records written by hand or by older code. */
export function recordAt(now: number, id = 'c#k'): fc.Arbitrary<IdempotencyRecord> {
  return fc
    .record({
      status: fc.constantFrom<IdempotencyRecord['status']>('IN_PROGRESS', 'COMPLETED', 'FAILED'),
      leaseOffset: fc.option(around(120_000), { nil: undefined }),
      retentionOffsetSec: around(86_400),
      owner: fc.option(fc.uuid(), { nil: undefined }),
      payloadHash: hashArb,
      attempts: fc.nat(50),
    })
    .map(({ status, leaseOffset, retentionOffsetSec, owner, payloadHash, attempts }) => ({
      id,
      status,
      expiresAt: Math.floor(now / 1000) + retentionOffsetSec,
      attempts,
      ...(leaseOffset === undefined ? {} : { leaseUntil: now + leaseOffset }),
      ...(owner === undefined ? {} : { owner }),
      ...(payloadHash === undefined ? {} : { payloadHash }),
    }));
}
