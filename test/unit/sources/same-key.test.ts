import { describe, expect, it } from 'vitest';
import { BusinessConflictError, acknowledged, type RecordOutcome } from '../../../src/index.js';
import { followerOutcome } from '../../../src/sources/same-key.js';

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
});
