import { describe, expect, it } from 'vitest';
import { systemClock, toEpochSeconds } from '../../../src/engine/clock.js';

describe('toEpochSeconds', () => {
  it('rounds up so a TTL never fires early', () => {
    expect(toEpochSeconds(1_000)).toBe(1);
    expect(toEpochSeconds(1_001)).toBe(2);
    expect(toEpochSeconds(1_999)).toBe(2);
  });
});

describe('systemClock', () => {
  it('reads the wall clock in epoch milliseconds', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
