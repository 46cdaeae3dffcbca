import { describe, expect, it } from 'vitest';
import { BusinessConflictError, DeadlineError, InvalidRecordError, LeaseLostError } from '../../../src/engine/errors.js';
import { acknowledged, summarize, type RecordOutcome } from '../../../src/engine/outcomes.js';
import type { IdempotencyRecord } from '../../../src/engine/record.js';

const existing: IdempotencyRecord = { id: 'c#k', status: 'COMPLETED', expiresAt: 1, attempts: 1 };
const base = { messageId: 'm', key: 'k' };
const conflict = new BusinessConflictError('conflict', []);

const cases: ReadonlyArray<[RecordOutcome, boolean]> = [
  [{ ...base, kind: 'completed' }, true],
  [{ ...base, kind: 'duplicate', existing, fromCache: false }, true],
  [{ ...base, kind: 'in-progress', existing: { ...existing, status: 'IN_PROGRESS' } }, false],
  [{ ...base, kind: 'failed', error: new Error('x') }, false],
  [{ messageId: 'm', kind: 'invalid', error: new InvalidRecordError('bad') }, false],
  [{ ...base, kind: 'lease-lost', error: new LeaseLostError('lost') }, false],
  [{ messageId: 'm', kind: 'not-started', reason: 'deadline', error: new DeadlineError('late') }, false],
  [{ ...base, kind: 'conflict', final: true, error: conflict }, true],
  [{ ...base, kind: 'conflict', final: false, error: conflict }, false],
  [{ ...base, kind: 'dead-lettered', was: 'failed', error: new Error('x'), dlqMessageId: 'd-1' }, true],
];

describe('acknowledged', () => {
  it.each(cases)('%o → %s', (outcome, expected) => {
    expect(acknowledged(outcome)).toBe(expected);
  });

  it('acknowledges only completed, duplicate, final conflicts and dead-lettered records (the DLQ holds those)', () => {
    const acked = cases.filter(([o]) => acknowledged(o)).map(([o]) => o.kind);
    expect(acked).toEqual(['completed', 'duplicate', 'conflict', 'dead-lettered']);
  });
});

describe('summarize', () => {
  it('counts outcomes by kind, including zero counts', () => {
    const counts = summarize(cases.map(([o]) => o));
    expect(counts).toMatchObject({ completed: 1, duplicate: 1, conflict: 2, invalid: 1, 'not-started': 1, 'dead-lettered': 1 });
    expect(summarize([])['lease-lost']).toBe(0);
  });
});
