/**
 * Properties of the lease arithmetic (src/engine/lease.ts): how long a claim is
 * protected, how much time is kept free at the end of an invocation, and how
 * the TTL in seconds relates to the lease in milliseconds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimVerdict } from '../../src/engine/claim.js';
import { toEpochSeconds } from '../../src/engine/clock.js';
import { leaseDuration, retentionExpired, safetyMargin, type AutoMargin, type LeasePolicy } from '../../src/engine/lease.js';
import { eventBridgeDefaults } from '../../src/sources/eventbridge/eventbridge.js';
import { sqsDefaults } from '../../src/sources/sqs/middleware.js';
import { commonDefaults } from '../../src/batch/options.js';
import { claimRequest } from '../../src/stores/dynamodb/expressions.js';
import { seeded } from './seed.js';

const HOUR = 3_600_000;
/** Lambda's longest timeout: no invocation has more time left than this. */
const LAMBDA_MAX_MS = 15 * 60_000;

/** Valid policies (the option check guarantees floor <= cap and cap > 0). */
const policyArb: fc.Arbitrary<LeasePolicy> = fc
  .integer({ min: 1, max: 2 * HOUR })
  .chain((capMs) => fc.record({ capMs: fc.constant(capMs), floorMs: fc.integer({ min: 0, max: capMs }), marginMs: fc.nat(10 * 60_000) }));

/** Remaining times a context can report, with the edges of the policy mixed in. */
const remainingFor = (p: LeasePolicy): fc.Arbitrary<number> =>
  fc.oneof(
    fc.integer({ min: -HOUR, max: 10 * HOUR }),
    fc.constantFrom(0, -0, 1, p.floorMs - p.marginMs, p.capMs - p.marginMs, p.capMs - p.marginMs + 1, p.capMs),
  );

const anyRemaining = fc.oneof(fc.integer({ min: -HOUR, max: 10 * HOUR }), fc.double(), fc.constant(undefined));

describe('leaseDuration', () => {
  it('stays within [floor, cap] and finite for any remaining time, unknown, NaN, infinite or negative', () => {
    fc.assert(
      fc.property(policyArb, anyRemaining, (p, r) => {
        const lease = leaseDuration(r, p);
        expect(Number.isFinite(lease)).toBe(true);
        expect(lease).toBeGreaterThanOrEqual(p.floorMs);
        expect(lease).toBeLessThanOrEqual(p.capMs);
      }),
      seeded(300),
    );
  });

  it('outlives the invocation by the margin unless the cap clips it, and is exactly remaining + margin inside the bounds', () => {
    fc.assert(
      fc.property(
        policyArb.chain((p) => fc.tuple(fc.constant(p), remainingFor(p))),
        ([p, r]) => {
          const lease = leaseDuration(r, p);
          const wanted = Math.max(0, r) + p.marginMs;
          expect(lease).toBeGreaterThanOrEqual(Math.min(p.capMs, wanted));
          if (wanted >= p.floorMs && wanted <= p.capMs) expect(lease).toBe(wanted);
        },
      ),
      seeded(300),
    );
  });

  it('never shrinks when more time remains (monotonic)', () => {
    fc.assert(
      fc.property(policyArb, fc.integer({ min: -HOUR, max: 10 * HOUR }), fc.nat(HOUR), (p, r, more) => {
        expect(leaseDuration(r + more, p)).toBeGreaterThanOrEqual(leaseDuration(r, p));
      }),
      seeded(300),
    );
  });

  it('unknown time takes the cap (never an endless lease); exhausted time is treated as zero', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.constantFrom(undefined, Number.NaN, Infinity, -Infinity),
        fc.integer({ min: -HOUR, max: 0 }),
        (p, unknown, spent) => {
          expect(leaseDuration(unknown, p)).toBe(p.capMs);
          expect(leaseDuration(spent, p)).toBe(leaseDuration(0, p));
        },
      ),
      seeded(100),
    );
  });

  it('with the default policy, no claim expires while its invocation can still run', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: LAMBDA_MAX_MS }), (r) => {
        expect(leaseDuration(r, commonDefaults.lease)).toBeGreaterThanOrEqual(r);
      }),
      seeded(300),
    );
  });
});

describe('safetyMargin', () => {
  const autoArb: fc.Arbitrary<AutoMargin> = fc.record({
    maxMs: fc.nat(60_000),
    fraction: fc.double({ min: 0, max: 1, noNaN: true }),
  });

  it('an explicit margin is used as given, whatever the time left', () => {
    fc.assert(
      fc.property(
        anyRemaining.map((r) => r ?? 0),
        fc.nat(60_000),
        autoArb,
        (r, explicit, auto) => {
          expect(safetyMargin(r, explicit, auto)).toBe(explicit);
        },
      ),
      seeded(200),
    );
  });

  it('the automatic margin is within [0, maxMs], at most the time left, and never shrinks as time grows', () => {
    fc.assert(
      fc.property(fc.integer({ min: -HOUR, max: 10 * HOUR }), fc.nat(HOUR), autoArb, (r, more, auto) => {
        const m = safetyMargin(r, undefined, auto);
        expect(m).toBeGreaterThanOrEqual(0);
        expect(m).toBeLessThanOrEqual(auto.maxMs);
        // So the first record of a batch always starts: `remaining < margin` is false at the start.
        expect(m).toBeLessThanOrEqual(Math.max(0, r));
        expect(safetyMargin(r + more, undefined, auto)).toBeGreaterThanOrEqual(m);
      }),
      seeded(300),
    );
  });

  it.each([
    ['SQS', sqsDefaults.autoSafetyMargin],
    ['EventBridge', eventBridgeDefaults.autoSafetyMargin],
  ])('%s defaults: a fifth of the time left, the cap exactly at five times the cap, the cap beyond', (_source, auto) => {
    const knee = auto.maxMs / auto.fraction;
    expect(safetyMargin(knee, undefined, auto)).toBe(auto.maxMs);
    expect(safetyMargin(Infinity, undefined, auto)).toBe(auto.maxMs);
    expect(safetyMargin(Number.NaN, undefined, auto)).toBe(auto.maxMs);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: LAMBDA_MAX_MS }), (r) => {
        const m = safetyMargin(r, undefined, auto);
        expect(m).toBe(r <= knee ? r * auto.fraction : auto.maxMs);
        expect(m).toBeLessThanOrEqual(r); // a 3 s function (Lambda's default timeout) still starts records
      }),
      seeded(200),
    );
  });
});

describe('TTL (seconds) against leases and retention (milliseconds)', () => {
  const epochMs = fc.integer({ min: 1_500_000_000_000, max: 2_500_000_000_000 });

  it('toEpochSeconds rounds up: a TTL is never earlier than the moment it stands for, and less than a second later', () => {
    fc.assert(
      fc.property(epochMs, (t) => {
        const s = toEpochSeconds(t);
        expect(s * 1000).toBeGreaterThanOrEqual(t);
        expect(s * 1000 - t).toBeLessThan(1000);
      }),
      seeded(300),
    );
  });

  it('retentionExpired(s, now) is exactly `s <= floor(now / 1000)`, the form the claim condition uses', () => {
    fc.assert(
      fc.property(epochMs, fc.integer({ min: -5_000, max: 5_000 }), (now, offset) => {
        const s = Math.floor(now / 1000) + offset;
        expect(retentionExpired(s, now)).toBe(s <= Math.floor(now / 1000));
      }),
      seeded(300),
    );
  });

  it('a fresh claim protects its key for exactly its lease: in progress until leaseUntil, free from then on', () => {
    fc.assert(
      fc.property(
        epochMs,
        fc.integer({ min: 1, max: HOUR }),
        fc.integer({ min: 1, max: 48 * HOUR }),
        fc.nat(),
        (now, leaseMs, retentionMs, at) => {
          const values =
            claimRequest({ tableName: 't', id: 'c#k', token: 'tok', now, leaseMs, retentionMs }).ExpressionAttributeValues ?? {};
          const claim = {
            id: 'c#k',
            status: 'IN_PROGRESS' as const,
            owner: 'tok',
            attempts: 1,
            leaseUntil: values[':leaseUntil'] as number,
            expiresAt: values[':expiresAt'] as number,
          };
          expect(claim.leaseUntil).toBe(now + leaseMs);
          // The TTL is the later of retention and lease end, rounded up: it can never free a live claim early.
          const t = now + (at % leaseMs);
          expect(claimVerdict(claim, t)).toBe('in-progress');
          expect(claimVerdict(claim, now + leaseMs)).toBe('free');
        },
      ),
      seeded(300),
    );
  });
});
