/**
 * Group commit's duplicate probe as pure rules: what a record found by the
 * probe means for the commit, and when a container sends the probe.
 */
import { describe, expect, it } from 'vitest';
import { probeVerdict } from '../../../src/engine/claim.js';
import { DuplicateRate, probeWorth } from '../../../src/strategies/transaction/group-commit/duplicate-probe.js';
import { meanSlowestSingleMs, meanTransactMs } from '../../../src/strategies/transaction/group-commit/latency-table.js';
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

/** Duplicates in batch `i` of 10 when `share` of all records are duplicates, spread evenly over the batches. */
const spread = (i: number, share: number) => Math.floor((i + 1) * share * 10) - Math.floor(i * share * 10);

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
    // A single record at this rate (12 %) does not pay for the read.
    expect(rate.rate).toBeLessThan(probeWorth(1, rate.itemsPerRecord));
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
    expect(1 - (1 - high.rate) ** 10).toBeGreaterThan(probeWorth(10, high.itemsPerRecord));
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

  it('"auto" between 2.8 % and 4.5 % duplicates (batches of 10): no probe any more (the old DynamoDB Local rule read at 25 % of batches)', () => {
    const at = (share: number) => {
      const rate = new DuplicateRate('auto');
      for (let i = 0; i < 2000; i += 1) rate.observe(spread(i, share), 10, (10 - spread(i, share)) * 2);
      return rate;
    };
    const low = at(0.035);
    expect(1 - (1 - low.rate) ** 10).toBeGreaterThan(0.25);
    expect(low.wantsProbe(10)).toBe(false);
    const high = at(0.055);
    expect(high.wantsProbe(10)).toBe(true);
  });

  it("a single record is probed once its duplicates are frequent enough: a duplicate's read replaces its refused commit", () => {
    const rate = new DuplicateRate('auto');
    for (let i = 0; i < 500; i += 1) rate.observe(i % 2, 1, 2);
    expect(rate.rate).toBeGreaterThan(probeWorth(1, 2));
    expect(rate.wantsProbe(1)).toBe(true);
  });

  it('tracks the items per committed record: larger transactions make a cancelled round dearer, so the probe pays sooner', () => {
    const small = new DuplicateRate('auto');
    const large = new DuplicateRate('auto');
    for (let i = 0; i < 2000; i += 1) {
      // 3.5 % duplicates; the 9 or 10 others commit with 1 or 4 business writes each.
      const dups = spread(i, 0.035);
      small.observe(dups, 10, (10 - dups) * 2);
      large.observe(dups, 10, (10 - dups) * 5);
    }
    expect(small.itemsPerRecord).toBeCloseTo(2, 5);
    expect(large.itemsPerRecord).toBeCloseTo(5, 1);
    expect(small.wantsProbe(10)).toBe(false);
    expect(large.wantsProbe(10)).toBe(true);
    // Duplicates sent nothing: they leave the items per record alone.
    large.observe(10, 10, 0);
    expect(large.itemsPerRecord).toBeCloseTo(5, 1);
  });
});

describe('probeWorth: the probe against the cancelled round it saves, on the AWS latency figures', () => {
  it("is the mean of the slowest of n single reads over the mean transaction of the batch's items", () => {
    expect(probeWorth(10, 2)).toBeCloseTo(meanSlowestSingleMs(10) / meanTransactMs(20), 12);
    expect(probeWorth(10, 2)).toBeGreaterThan(0.36);
    expect(probeWorth(10, 2)).toBeLessThan(0.38);
    expect(probeWorth(1, 2)).toBeCloseTo(meanSlowestSingleMs(1) / meanTransactMs(2), 12);
    // At most 100 actions in one transaction: a larger batch's cancelled round is one transaction of 100.
    expect(probeWorth(100, 2)).toBeCloseTo(meanSlowestSingleMs(100) / meanTransactMs(100), 12);
  });
});
