/**
 * Later copies of a key within one batch (a producer re-send that landed in the same batch): they never run the handler
 * again; each is decided from what the first copy found in the store or did. Pure: no I/O.
 */
import { PayloadMismatchError } from '../engine/errors.js';
import type { RecordOutcome } from '../engine/outcomes.js';
import { replayCopy, type IdempotencyRecord } from '../engine/record.js';
import { payloadMismatch } from '../engine/prepare.js';
import type { OwnedRecord } from '../engine/settle.js';

/** The record the first copy found in the store: a duplicate's, an in-progress claim's, or the one its payload did not match. */
function foundRecord(leader: RecordOutcome): IdempotencyRecord | undefined {
  if (leader.kind === 'duplicate' || leader.kind === 'in-progress') return leader.existing;
  if (leader.kind === 'invalid' && leader.error instanceof PayloadMismatchError) return leader.error.existing;
  return undefined;
}

/** The record the first copy completed, as far as this invocation knows it. */
function completedRecord(leader: Extract<RecordOutcome, { kind: 'completed' }>, follower: OwnedRecord, hash?: string): IdempotencyRecord {
  // Each copy gets its own copy of the result: a caller mutating one must not change another.
  const result = replayCopy(leader.result);
  return {
    id: follower.id,
    status: 'COMPLETED',
    expiresAt: 0,
    attempts: 1,
    messageId: leader.messageId,
    ...(hash === undefined ? {} : { payloadHash: hash }),
    ...(result === undefined ? {} : { result }),
  };
}

/** The record with its own copy of the result (a result with no JSON form is left out, as a replay from the table would). */
function ownCopy(record: IdempotencyRecord): IdempotencyRecord {
  const { result, ...rest } = record;
  const copy = replayCopy(result);
  return copy === undefined ? rest : { ...rest, result: copy };
}

/** A copy judged against the stored record its first copy found: it follows that record when its payload matches. */
function followRecord(follower: OwnedRecord, existing: IdempotencyRecord, leader: RecordOutcome): RecordOutcome {
  const { messageId, key } = follower;
  const message = `Key already recorded under ${existing.id} with a different payload (message ${messageId}, a copy of ${leader.messageId} in this batch).`;
  const error = payloadMismatch(follower.payloadHash, existing.payloadHash, message, { key, existing });
  if (error !== undefined) return { kind: 'invalid', messageId, key, error };
  // A mismatched first copy says only that a live record was in the way: its status tells done from in progress.
  const done = leader.kind === 'duplicate' || (leader.kind === 'invalid' && existing.status === 'COMPLETED');
  if (done) return { kind: 'duplicate', messageId, key, existing: ownCopy(existing), fromCache: false };
  return { kind: 'in-progress', messageId, key, existing };
}

/**
 * Outcome of a later copy, given its first copy's outcome:
 * - the first copy found a stored record (duplicate, in progress, payload mismatch): judged against it, as if alone;
 * - the first copy completed: a duplicate of it, or invalid with another payload;
 * - a final business conflict (`onConflict: 'acknowledge'`): shared with the same payload;
 * - otherwise (failed, not started, lease lost, a conflict that is retried or has another payload): nothing was
 *   recorded to judge it by, so it comes back `not-started` (`same-key-failed`), the same label under every strategy.
 */
export function followerOutcome(follower: OwnedRecord, leader: RecordOutcome, leaderHash: string | undefined): RecordOutcome {
  const { messageId, key } = follower;
  const found = foundRecord(leader);
  if (found !== undefined) return followRecord(follower, found, leader);
  const message = `Same key as message ${leader.messageId} in this batch, with a different payload.`;
  const differs = payloadMismatch(follower.payloadHash, leaderHash, message, { key });
  if (leader.kind === 'completed') {
    if (differs !== undefined) return { kind: 'invalid', messageId, key, error: differs };
    return { kind: 'duplicate', messageId, key, existing: completedRecord(leader, follower, leaderHash), fromCache: false };
  }
  if (leader.kind === 'conflict' && leader.final && differs === undefined) return { ...leader, messageId };
  return { kind: 'not-started', messageId, key, reason: 'same-key-failed' };
}
