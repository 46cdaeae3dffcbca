/**
 * Which failed records are permanent failures, for the SQS dead-letter path.
 * Pure: the send lives in src/sources/sqs/dlq.ts.
 */
import { EffectivelyOnceError, PermanentError } from '../../engine/errors.js';
import { acknowledged, type FailedOutcome, type InvalidOutcome, type RecordOutcome } from '../../engine/outcomes.js';

/** A user's rule: whether an error the handler threw will never go away. */
export type IsPermanent = (error: unknown) => boolean;

/**
 * Whether a record's outcome is a permanent failure: an invalid record (it
 * never heals), a `PermanentError`, or an error the user's predicate names.
 * The library's own errors (a deadline, a lost lease, a conflict) and
 * a batch's error (`aboutTheBatch`) are about this delivery, not the message, so the
 * predicate is never asked about them; a predicate that throws counts as "no" (the record comes back).
 */
export function isPermanentFailure(
  outcome: RecordOutcome,
  isPermanent: IsPermanent | undefined,
): outcome is FailedOutcome | InvalidOutcome {
  if (outcome.kind === 'invalid') return true;
  if (outcome.kind !== 'failed') return false;
  // The batch's error, not this record's: the record never ran.
  if (outcome.aboutTheBatch === true) return false;
  const { error } = outcome;
  if (error instanceof PermanentError) return true;
  if (error instanceof EffectivelyOnceError || isPermanent === undefined) return false;
  try {
    return isPermanent(error) === true;
  } catch {
    return false;
  }
}

/**
 * Which outcomes may be sent to the DLQ (and so acknowledged), in delivery order: permanent failures, but in a FIFO lane
 * only the first record not acknowledged (one behind a record that comes back must come back too, or it would leave
 * its group first).
 */
export function deadLetterable(
  outcomes: readonly RecordOutcome[],
  laneOf: (outcome: RecordOutcome) => string | undefined,
  isPermanent: IsPermanent | undefined,
): boolean[] {
  const blocked = new Set<string>();
  return outcomes.map((outcome) => {
    const lane = laneOf(outcome);
    const held = lane !== undefined && blocked.has(lane);
    if (lane !== undefined && !acknowledged(outcome)) blocked.add(lane);
    return !held && isPermanentFailure(outcome, isPermanent);
  });
}
