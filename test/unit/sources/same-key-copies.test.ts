/**
 * Later copies of a key in one batch carry the first copy's result: each as
 * an independent value, as a replay from the table would give it (issue 10,
 * item 4).
 */
import { describe, expect, it } from 'vitest';
import type { IdempotencyRecord } from '../../../src/engine/record.js';
import type { RecordOutcome } from '../../../src/engine/outcomes.js';
import { followerOutcome } from '../../../src/batch/same-key.js';

const copy = (messageId: string) => ({ messageId, key: 'k', id: 'c#k' });
const resultOf = (outcome: RecordOutcome): unknown => (outcome.kind === 'duplicate' ? outcome.existing.result : undefined);

describe('followerOutcome: the carried result', () => {
  it('a completed first copy: every follower gets its own copy of the result, not the leader’s object', () => {
    const result = { lines: ['original'] };
    const leader: RecordOutcome = { kind: 'completed', messageId: 'm1', key: 'k', result };
    const a = resultOf(followerOutcome(copy('m2'), leader, undefined)) as typeof result;
    const b = resultOf(followerOutcome(copy('m3'), leader, undefined)) as typeof result;
    expect(a).toEqual(result);
    expect(a).not.toBe(result);
    a.lines.push('mutated');
    expect(b).toEqual({ lines: ['original'] });
    expect(result).toEqual({ lines: ['original'] });
  });

  it('a duplicate first copy: followers do not share the record the leader found', () => {
    const existing: IdempotencyRecord = {
      id: 'c#k',
      status: 'COMPLETED',
      expiresAt: 4_000_000_000,
      attempts: 1,
      result: { lines: ['original'] },
    };
    const leader: RecordOutcome = { kind: 'duplicate', messageId: 'm1', key: 'k', existing, fromCache: true };
    const a = resultOf(followerOutcome(copy('m2'), leader, undefined)) as { lines: string[] };
    a.lines.push('mutated');
    expect(existing.result).toEqual({ lines: ['original'] });
    expect(resultOf(followerOutcome(copy('m3'), leader, undefined))).toEqual({ lines: ['original'] });
  });

  it('a result that is not JSON is not carried (a replay from the table could not give it either)', () => {
    const leader: RecordOutcome = { kind: 'completed', messageId: 'm1', key: 'k', result: { big: 1n } };
    const outcome = followerOutcome(copy('m2'), leader, undefined);
    expect(outcome.kind).toBe('duplicate');
    expect(resultOf(outcome)).toBeUndefined();
  });
});
