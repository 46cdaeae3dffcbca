import { describe, expect, it } from 'vitest';
import { BusinessConflictError, PayloadMismatchError } from '../../../src/index.js';
import type { IdempotencyRecord } from '../../../src/engine/record.js';
import { acknowledged, type RecordOutcome } from '../../../src/engine/outcomes.js';
import { followerOutcome } from '../../../src/batch/same-key.js';

const follower = { messageId: 'm2', key: 'k', id: 'c#k', payloadHash: 'h1' };

describe('followerOutcome', () => {
  it('is a duplicate (acknowledged) when the first copy completed, carrying its result', () => {
    const leader: RecordOutcome = { kind: 'completed', messageId: 'm1', key: 'k', result: 7 };
    const outcome = followerOutcome(follower, leader, 'h1');
    expect(outcome).toMatchObject({ kind: 'duplicate', messageId: 'm2', existing: { status: 'COMPLETED', result: 7, messageId: 'm1' } });
    expect(acknowledged(outcome)).toBe(true);
  });
  it('is retried when the first copy was not acknowledged', () => {
    const leader: RecordOutcome = { kind: 'failed', messageId: 'm1', key: 'k', error: new Error('x') };
    const outcome = followerOutcome(follower, leader, 'h1');
    expect(outcome).toMatchObject({ kind: 'not-started', reason: 'same-key-failed' });
    expect(acknowledged(outcome)).toBe(false);
  });
  it('is flagged when its payload differs from the first copy’s', () => {
    const leader: RecordOutcome = { kind: 'completed', messageId: 'm1', key: 'k' };
    expect(followerOutcome(follower, leader, 'h2')).toMatchObject({ kind: 'invalid', error: { name: 'PayloadMismatchError' } });
  });
  it('shares a final business conflict', () => {
    const error = new BusinessConflictError('no', []);
    const leader: RecordOutcome = { kind: 'conflict', messageId: 'm1', key: 'k', final: true, error };
    expect(followerOutcome(follower, leader, 'h1')).toMatchObject({ kind: 'conflict', messageId: 'm2', final: true });
  });
  it('is not started (same-key-failed) behind a business conflict that is retried, as behind a failure', () => {
    const error = new BusinessConflictError('no', []);
    const leader: RecordOutcome = { kind: 'conflict', messageId: 'm1', key: 'k', final: false, error };
    const outcome = followerOutcome(follower, leader, 'h1');
    expect(outcome).toEqual({ kind: 'not-started', messageId: 'm2', key: 'k', reason: 'same-key-failed' });
    expect(acknowledged(outcome)).toBe(false);
  });
  it('is not started behind a final business conflict with another payload', () => {
    const error = new BusinessConflictError('no', []);
    const leader: RecordOutcome = { kind: 'conflict', messageId: 'm1', key: 'k', final: true, error };
    expect(followerOutcome(follower, leader, 'h2')).toMatchObject({ kind: 'not-started', reason: 'same-key-failed' });
  });

  describe('judged against the record the first copy found (issue 10, item 2)', () => {
    const stored: IdempotencyRecord = { id: 'c#k', status: 'COMPLETED', expiresAt: 2e9, attempts: 1, payloadHash: 'h1', result: 'r' };
    it('is a duplicate of that record when the first copy was flagged but this copy matches it', () => {
      const leader: RecordOutcome = {
        kind: 'invalid',
        messageId: 'm1',
        key: 'k',
        error: new PayloadMismatchError('differs', { key: 'k', existing: stored }),
      };
      const outcome = followerOutcome(follower, leader, 'h2');
      expect(outcome).toMatchObject({ kind: 'duplicate', messageId: 'm2', existing: stored });
      expect(acknowledged(outcome)).toBe(true);
    });
    it('is flagged when it differs from a found record, even though it matches the first copy', () => {
      const leader: RecordOutcome = {
        kind: 'duplicate',
        messageId: 'm1',
        key: 'k',
        existing: { ...stored, payloadHash: 'h2' },
        fromCache: false,
      };
      expect(followerOutcome(follower, leader, 'h1')).toMatchObject({
        kind: 'invalid',
        error: { name: 'PayloadMismatchError', existing: { payloadHash: 'h2' } },
      });
    });
    it('comes back in progress behind a live claim with its payload', () => {
      const claim: IdempotencyRecord = { ...stored, status: 'IN_PROGRESS', leaseUntil: 2e12 };
      const leader: RecordOutcome = {
        kind: 'invalid',
        messageId: 'm1',
        key: 'k',
        error: new PayloadMismatchError('differs', { key: 'k', existing: claim }),
      };
      expect(followerOutcome(follower, leader, 'h2')).toMatchObject({ kind: 'in-progress', existing: claim });
    });
    it('comes back not started when the first copy failed, whatever its payload (nothing was recorded to judge it by)', () => {
      const leader: RecordOutcome = { kind: 'failed', messageId: 'm1', key: 'k', error: new Error('x') };
      expect(followerOutcome(follower, leader, 'h2')).toMatchObject({ kind: 'not-started', reason: 'same-key-failed' });
    });
  });
});
