/**
 * The in-invocation retry of a transaction cancelled by contention (issue 10,
 * item 10): a bounded number of commits, full-jitter backoff, never past the
 * time left before the safety margin. Pure: the random source is injected.
 */
import { describe, expect, it } from 'vitest';
import { commitRetryDefaults, commitRetryDelay, type CommitRetryPolicy } from '../../../src/strategies/transaction/retry.js';

const policy: CommitRetryPolicy = { attempts: 3, baseDelayMs: 20, maxDelayMs: 50 };
const top = () => 0.999_999;
const half = () => 0.5;

describe('commitRetryDelay', () => {
  it('allows attempts - 1 retries, then gives up', () => {
    expect(commitRetryDelay(1, Infinity, half, policy)).toBeDefined();
    expect(commitRetryDelay(2, Infinity, half, policy)).toBeDefined();
    expect(commitRetryDelay(3, Infinity, half, policy)).toBeUndefined();
    expect(commitRetryDelay(1, Infinity, half, { ...policy, attempts: 1 })).toBeUndefined();
  });

  it('full jitter: uniform between 0 and a ceiling that doubles from baseDelayMs up to maxDelayMs', () => {
    expect(commitRetryDelay(1, Infinity, () => 0, policy)).toBe(0);
    expect(commitRetryDelay(1, Infinity, half, policy)).toBe(10);
    expect(commitRetryDelay(1, Infinity, top, policy)).toBeLessThan(20);
    expect(commitRetryDelay(2, Infinity, half, policy)).toBe(20);
    expect(commitRetryDelay(5, Infinity, top, { ...policy, attempts: 10 })).toBeLessThan(50);
    expect(commitRetryDelay(5, Infinity, half, { ...policy, attempts: 10 })).toBe(25);
  });

  it('never pauses into the safety margin: gives up when the pause would use up the time left', () => {
    expect(commitRetryDelay(1, 11, half, policy)).toBe(10);
    expect(commitRetryDelay(1, 10, half, policy)).toBeUndefined();
    expect(commitRetryDelay(1, 0, () => 0, policy)).toBeUndefined();
    expect(commitRetryDelay(1, -500, () => 0, policy)).toBeUndefined();
  });

  it('a random source outside [0, 1) cannot stretch the pause past its ceiling', () => {
    expect(commitRetryDelay(1, Infinity, () => 7, policy)).toBeLessThan(20);
    expect(commitRetryDelay(1, Infinity, () => -1, policy)).toBe(0);
  });

  it('the defaults: 3 commits in all, pauses of tens of ms', () => {
    expect(commitRetryDefaults.attempts).toBe(3);
    expect(commitRetryDefaults.maxDelayMs).toBeLessThanOrEqual(100);
    expect(commitRetryDelay(3, Infinity, top)).toBeUndefined();
    expect(commitRetryDelay(2, Infinity, top)).toBeLessThanOrEqual(commitRetryDefaults.maxDelayMs);
  });
});
