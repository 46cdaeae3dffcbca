/** Per-record outcomes, one `kind` per way a record can end; `acknowledged()` alone decides whether it leaves the queue. */
import type { BusinessConflictError, DeadlineError, InvalidRecordError, LeaseLostError } from './errors.js';
import type { IdempotencyRecord } from './record.js';

interface Base {
  /** SQS message id or EventBridge event id of this delivery. */
  readonly messageId: string;
  /** The business key, when one could be extracted. */
  readonly key?: string;
}

/** The handler ran and its effect was recorded. Acknowledged. */
export interface CompletedOutcome extends Base {
  readonly kind: 'completed';
  readonly key: string;
  /** The handler's result (what this delivery answers with), stored or not. */
  readonly result?: unknown;
  /**
   * Why the result was not stored (`ItemTooLargeError`, `UnstorableResultError`), when it could not be: the record is
   * completed without it (its effect happened, never to run again; a duplicate gets no result) and the line warns.
   */
  readonly resultNotStored?: InvalidRecordError;
}
/** The key was already COMPLETED: the handler did not run. Acknowledged. */
export interface DuplicateOutcome extends Base {
  readonly kind: 'duplicate';
  readonly key: string;
  readonly existing: IdempotencyRecord;
  /** True when the answer came from the warm-container cache (no request). */
  readonly fromCache: boolean;
}
/** Another invocation holds an unexpired claim. Not acknowledged: SQS redelivers later. */
export interface InProgressOutcome extends Base {
  readonly kind: 'in-progress';
  readonly key: string;
  readonly existing: IdempotencyRecord;
}
/** The handler failed for this record; the claim was released. Not acknowledged. */
export interface FailedOutcome extends Base {
  readonly kind: 'failed';
  readonly key: string;
  readonly error: unknown;
  /** The error is the batch's (the handler threw before reaching it, no `eachRecord`): never a permanent failure. */
  readonly aboutTheBatch?: true;
}
/** The record cannot be processed as it is (no key, bad body, a body failing its schema, payload mismatch, a transaction item too large), found before the handler or thrown by it as an `InvalidRecordError`. Not acknowledged. */
export interface InvalidOutcome extends Base {
  readonly kind: 'invalid';
  readonly error: InvalidRecordError;
}
/** This invocation's claim was taken over; its write was refused. Not acknowledged (the redelivery decides). */
export interface LeaseLostOutcome extends Base {
  readonly kind: 'lease-lost';
  readonly key: string;
  readonly error: LeaseLostError;
}
/** Not started: the deadline was near, its FIFO group or the first copy of its key failed, or the handler threw. Not acknowledged. */
export interface NotStartedOutcome extends Base {
  readonly kind: 'not-started';
  readonly reason: 'deadline' | 'group-failed' | 'handler-threw' | 'same-key-failed';
  /** A `DeadlineError` for `deadline`. */
  readonly error?: DeadlineError;
}
/** Transaction strategy: a business condition failed; nothing was written. Acknowledged only when `final`. */
export interface ConflictOutcome extends Base {
  readonly kind: 'conflict';
  readonly key: string;
  readonly final: boolean;
  readonly error: BusinessConflictError;
}

/** SQS with `deadLetter`: the record failed permanently and the dead-letter queue took a copy. Acknowledged: the DLQ holds it. */
export interface DeadLetteredOutcome extends Base {
  readonly kind: 'dead-lettered';
  /** The outcome it would have been without a DLQ. */
  readonly was: 'failed' | 'invalid';
  readonly error: unknown;
  /** The message id the DLQ gave the copy. */
  readonly dlqMessageId: string;
}

/** How one record ended. */
export type RecordOutcome =
  | CompletedOutcome
  | DuplicateOutcome
  | InProgressOutcome
  | FailedOutcome
  | InvalidOutcome
  | LeaseLostOutcome
  | NotStartedOutcome
  | ConflictOutcome
  | DeadLetteredOutcome;

/** Every `kind` of {@link RecordOutcome}. */
export type RecordOutcomeKind = RecordOutcome['kind'];

/** Whether the record may leave the queue. Everything not listed here is retried, so a mistake errs towards redelivery, never loss. */
export function acknowledged(outcome: RecordOutcome): boolean {
  switch (outcome.kind) {
    case 'completed':
    case 'duplicate':
    case 'dead-lettered':
      return true;
    case 'conflict':
      return outcome.final;
    default:
      return false;
  }
}

/** Counts of outcomes by kind, for the one structured log line per batch. */
export function summarize(outcomes: readonly RecordOutcome[]): Record<RecordOutcomeKind, number> {
  const counts: Record<RecordOutcomeKind, number> = {
    completed: 0,
    duplicate: 0,
    'in-progress': 0,
    failed: 0,
    invalid: 0,
    'lease-lost': 0,
    'not-started': 0,
    conflict: 0,
    'dead-lettered': 0,
  };
  for (const o of outcomes) counts[o.kind] += 1;
  return counts;
}
