/**
 * Later copies of a key within one batch (a producer re-send that landed in
 * the same batch): they follow the first copy. Acknowledged when it is,
 * returned for retry when it is not, flagged when their payload differs.
 */
import { acknowledged, type RecordOutcome } from '../core/outcomes.js';
import { replayCopy, type IdempotencyRecord } from '../core/record.js';
import { payloadMismatch } from './prepare.js';
import type { OwnedRecord } from './sqs-settle.js';

/** The record the first copy left (or found), as far as this invocation knows it; each follower gets its own copy of the result. */
function leaderRecord(leader: RecordOutcome, follower: OwnedRecord): IdempotencyRecord {
  if (leader.kind === 'duplicate') {
    const { result, ...existing } = leader.existing;
    const copy = replayCopy(result);
    return copy === undefined ? existing : { ...existing, result: copy };
  }
  const result = leader.kind === 'completed' ? replayCopy(leader.result) : undefined;
  return {
    id: follower.id,
    status: 'COMPLETED',
    expiresAt: 0,
    attempts: 1,
    messageId: leader.messageId,
    ...(result === undefined ? {} : { result }),
  };
}

/** Outcome of a follower, given its first copy's outcome and payload hash. */
export function followerOutcome(follower: OwnedRecord, leader: RecordOutcome, leaderHash: string | undefined): RecordOutcome {
  const { messageId, key } = follower;
  const message = `Same key as message ${leader.messageId} in this batch, with a different payload.`;
  const error = payloadMismatch(follower.payloadHash, leaderHash, message, { key });
  if (error !== undefined) return { kind: 'invalid', messageId, key, error };
  if (leader.kind === 'conflict') return { ...leader, messageId };
  if (acknowledged(leader)) {
    return { kind: 'duplicate', messageId, key, existing: leaderRecord(leader, follower), fromCache: false };
  }
  return { kind: 'not-started', messageId, key, reason: 'same-key-failed' };
}
