/**
 * Group commit's duplicate probe as pure rules: what a record found by the
 * probe means for the commit, and when a container sends the probe.
 */
import { describe, expect, it } from 'vitest';
import { DuplicateRate, PROBE_WORTH, probeVerdict } from '../../../src/transaction/group-commit/duplicate-probe.js';
import { payloadHash } from '../../../src/engine/hashing.js';
import type { IdempotencyRecord } from '../../../src/engine/record.js';

const now = 1_700_000_000_000;
const sec = Math.floor(now / 1000);
const completed = (extra: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  id: 'c#k',
  status: 'COMPLETED',
  expiresAt: sec + 60,
  attempts: 1,
  ...extra,
});

describe('probeVerdict', () => {
  it('a COMPLETED record within its retention is a duplicate, with or without a payload to compare', () => {
    expect(probeVerdict(completed(), now, undefined)).toBe('duplicate');
    const hash = payloadHash({ a: 1 });
    expect(probeVerdict(completed({ payloadHash: hash }), now, hash)).toBe('duplicate');
    expect(probeVerdict(completed(), now, hash)).toBe('duplicate');
  });

  it('a COMPLETED record under another payload is left to the commit (sent alone), never answered by the probe', () => {
    expect(probeVerdict(completed({ payloadHash: payloadHash({ a: 1 }) }), now, payloadHash({ a: 2 }))).toBe('blocked');
  });

  it('a live claim is blocked; nothing, a record past its retention, FAILED or a passed lease is free', () => {
    expect(probeVerdict(completed({ status: 'IN_PROGRESS', leaseUntil: now + 1 }), now, undefined)).toBe('blocked');
    expect(probeVerdict(undefined, now, undefined)).toBe('free');
    expect(probeVerdict(completed({ expiresAt: sec }), now, undefined)).toBe('free');
    expect(probeVerdict(completed({ status: 'FAILED' }), now, undefined)).toBe('free');
    expect(probeVerdict(completed({ status: 'IN_PROGRESS', leaseUntil: now }), now, undefined)).toBe('free');
  });
});

describe('DuplicateRate', () => {
  it('"never" never probes, "always" probes every batch with a record', () => {
    const never = new DuplicateRate('never');
    never.observe(10, 10);
    expect(never.wantsProbe(10)).toBe(false);
    const always = new DuplicateRate('always');
    expect(always.wantsProbe(1)).toBe(true);
    expect(always.wantsProbe(0)).toBe(false);
  });

  it('"auto": a fresh container does not probe; after frequent duplicates it does; it stops once they stop', () => {
    const rate = new DuplicateRate('auto');
    expect(rate.wantsProbe(10)).toBe(false);
    for (let i = 0; i < 10; i += 1) rate.observe(3, 10);
    expect(rate.wantsProbe(10)).toBe(true);
    // A single record never pays for the read.
    expect(rate.wantsProbe(1)).toBe(false);
    for (let i = 0; i < 200; i += 1) rate.observe(0, 10);
    expect(rate.wantsProbe(10)).toBe(false);
  });

  it('"auto" at a 1 % duplicate rate stays off; at 25 % it is on (batches of 10)', () => {
    const low = new DuplicateRate('auto');
    const high = new DuplicateRate('auto');
    for (let i = 0; i < 500; i += 1) {
      low.observe(i % 10 === 0 ? 1 : 0, 10);
      high.observe(i % 2 === 0 ? 2 : 3, 10);
    }
    expect(low.rate).toBeCloseTo(0.01, 2);
    expect(low.wantsProbe(10)).toBe(false);
    expect(1 - (1 - high.rate) ** 10).toBeGreaterThan(PROBE_WORTH);
    expect(high.wantsProbe(10)).toBe(true);
  });

  it('ignores empty observations and caps duplicates at the records', () => {
    const rate = new DuplicateRate('auto');
    rate.observe(5, 0);
    expect(rate.rate).toBe(0);
    rate.observe(50, 10);
    expect(rate.rate).toBeLessThanOrEqual(1);
    expect(rate.rate).toBeGreaterThan(0);
  });
});
