import { describe, expect, it } from 'vitest';
import { leaseDuration, leaseExpired, retentionExpired, safetyMargin, type LeasePolicy } from '../../../src/engine/lease.js';

const policy: LeasePolicy = { marginMs: 5_000, floorMs: 10_000, capMs: 900_000 };

describe('leaseDuration', () => {
  it('is the remaining time plus the margin within floor and cap', () => {
    expect(leaseDuration(60_000, policy)).toBe(65_000);
  });

  it('never goes under the floor, even with no time left', () => {
    expect(leaseDuration(1_000, policy)).toBe(10_000);
    expect(leaseDuration(0, policy)).toBe(10_000);
    expect(leaseDuration(-50_000, policy)).toBe(10_000);
  });

  it('never goes over the cap', () => {
    expect(leaseDuration(10_000_000, policy)).toBe(900_000);
  });

  it('takes the cap, not an endless lease, when the remaining time is unknown', () => {
    expect(leaseDuration(undefined, policy)).toBe(900_000);
    expect(leaseDuration(Number.NaN, policy)).toBe(900_000);
    expect(leaseDuration(Number.POSITIVE_INFINITY, policy)).toBe(900_000);
  });
});

describe('leaseExpired', () => {
  it('expires exactly at leaseUntil, not before', () => {
    expect(leaseExpired(1_000, 999)).toBe(false);
    expect(leaseExpired(1_000, 1_000)).toBe(true);
    expect(leaseExpired(1_000, 1_001)).toBe(true);
  });

  it("never expires a missing lease: DynamoDB's `leaseUntil <= :now` is false for a missing attribute", () => {
    expect(leaseExpired(undefined, 0)).toBe(false);
    expect(leaseExpired(undefined, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe('retentionExpired', () => {
  it('compares epoch seconds with epoch milliseconds', () => {
    expect(retentionExpired(100, 99_999)).toBe(false);
    expect(retentionExpired(100, 100_000)).toBe(true);
  });
});

describe('safetyMargin', () => {
  const auto = { maxMs: 5_000, fraction: 0.2 };
  it('uses the explicit margin when given', () => {
    expect(safetyMargin(3_000, 0, auto)).toBe(0);
    expect(safetyMargin(3_000, 2_500, auto)).toBe(2_500);
  });
  it('keeps a fraction of the time left, capped, so a 3 s function still starts records', () => {
    expect(safetyMargin(3_000, undefined, auto)).toBe(600);
    expect(safetyMargin(900_000, undefined, auto)).toBe(5_000);
    expect(safetyMargin(Number.POSITIVE_INFINITY, undefined, auto)).toBe(5_000);
    expect(safetyMargin(-5, undefined, auto)).toBe(0);
  });
});
