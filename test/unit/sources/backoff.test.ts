import { describe, expect, it } from 'vitest';
import { backoffSeconds } from '../../../src/sources/sqs/backoff-schedule.js';
import { BusinessConflictError, DeadlineError, InvalidRecordError, PermanentError } from '../../../src/engine/errors.js';
import { isPermanentFailure } from '../../../src/sources/sqs/permanent.js';

const policy = { baseSeconds: 5, maxSeconds: 120 };

describe('backoffSeconds', () => {
  it('doubles the ceiling with each receive and caps it', () => {
    const top = (n: number) => backoffSeconds(n, policy, () => 0.999_999);
    expect([1, 2, 3, 4, 5, 6, 50].map(top)).toEqual([5, 10, 20, 40, 80, 120, 120]);
  });

  it('draws uniformly from 0 to the ceiling (full jitter)', () => {
    expect(backoffSeconds(3, policy, () => 0)).toBe(0);
    expect(backoffSeconds(3, policy, () => 0.5)).toBe(10);
  });

  it('keeps a stray random source inside the bounds and never exceeds the SQS limit', () => {
    expect(backoffSeconds(3, policy, () => 7)).toBe(20);
    expect(backoffSeconds(3, policy, () => -1)).toBe(0);
    expect(backoffSeconds(3, policy, () => Number.NaN)).toBe(0);
    expect(backoffSeconds(80, { baseSeconds: 43_200, maxSeconds: 1e9 }, () => 0.999_999)).toBe(43_200);
  });
});

describe('isPermanentFailure', () => {
  const failed = (error: unknown) => ({ kind: 'failed', messageId: 'm', key: 'k', error }) as const;

  it('takes invalid records and PermanentErrors, asks the predicate about other errors only', () => {
    expect(isPermanentFailure({ kind: 'invalid', messageId: 'm', error: new InvalidRecordError('bad') }, undefined)).toBe(true);
    expect(isPermanentFailure(failed(new PermanentError('gone')), () => false)).toBe(true);
    expect(isPermanentFailure(failed(new TypeError('x')), undefined)).toBe(false);
    expect(isPermanentFailure(failed(new TypeError('x')), (e) => e instanceof TypeError)).toBe(true);
  });

  it('never treats the library’s own delivery errors as permanent, nor a record that was not a failure', () => {
    const always = () => true;
    expect(isPermanentFailure(failed(new DeadlineError('late')), always)).toBe(false);
    const conflict = new BusinessConflictError('c', []);
    expect(isPermanentFailure({ kind: 'conflict', messageId: 'm', key: 'k', final: false, error: conflict }, always)).toBe(false);
    expect(isPermanentFailure({ kind: 'completed', messageId: 'm', key: 'k' }, always)).toBe(false);
  });

  it('counts a throwing predicate as "not permanent" (the record comes back)', () => {
    const throwing = () => {
      throw new Error('bug');
    };
    expect(isPermanentFailure(failed(new Error('x')), throwing)).toBe(false);
  });
});
