/**
 * Error classes: one root, `EffectivelyOnceError`; each subclass sets `name`, keeps `cause`, and carries the key and
 * the existing record where there is one. The one import path for all of them: the errors about claims, leases and
 * deadlines and `PermanentError` here, the root and the record and transaction families re-exported.
 */
import { EffectivelyOnceError } from './error-base.js';

export { EffectivelyOnceError, errorParts, type ErrorContext } from './error-base.js';
export {
  BodyParseError,
  InvalidRecordError,
  ItemTooLargeError,
  KeyFunctionError,
  KeyTooLongError,
  MissingKeyError,
  PayloadFunctionError,
  PayloadMismatchError,
  SchemaValidationError,
  UnstorableResultError,
} from './record-errors.js';
export {
  BusinessConflictError,
  TransactionLimitError,
  TransactionRetryableError,
  type CancellationReasonInfo,
} from './transaction-errors.js';

/**
 * Another invocation holds an unexpired claim on this key. Not a success: the
 * message must be retried later (SQS: reported in `batchItemFailures`;
 * EventBridge: thrown so Lambda's async retry tries again).
 *
 * @example
 * ```ts
 * import { IdempotencyInProgressError } from 'effectively-once';
 *
 * // Not this event's failure: another invocation holds the claim. Retry later, never acknowledge.
 * function heldElsewhere(err: unknown): string | undefined {
 *   return err instanceof IdempotencyInProgressError ? `${err.key} is claimed until ${err.existing?.leaseUntil}` : undefined;
 * }
 * ```
 */
export class IdempotencyInProgressError extends EffectivelyOnceError {
  override readonly name = 'IdempotencyInProgressError';
}

/**
 * This invocation's claim was taken over by another one after its lease
 * passed; its complete/release was refused by the owner-token condition.
 *
 * @example
 * ```ts
 * import { LeaseLostError } from 'effectively-once';
 *
 * // The effect may have run twice (`idempotent()` throws it): the lease was too short for this function.
 * function leaseTooShort(err: unknown): boolean {
 *   return err instanceof LeaseLostError;
 * }
 * ```
 */
export class LeaseLostError extends EffectivelyOnceError {
  override readonly name = 'LeaseLostError';
}

/**
 * The Lambda's remaining time fell under the safety margin before this record
 * started, or the batch was answered (a timeout response) before it finished.
 */
export class DeadlineError extends EffectivelyOnceError {
  override readonly name = 'DeadlineError';
}

/**
 * Thrown by a handler for a record that will never succeed however often it
 * is retried (an unknown template, a closed account). With the SQS plug-in
 * `deadLetter`, the record is sent straight to the queue's dead-letter queue
 * and acknowledged instead of burning every receive; without it, it is a
 * failed record like any other.
 *
 * @example
 * ```ts
 * import { PermanentError } from 'effectively-once';
 *
 * function templateOf(name: string): string {
 *   if (name !== 'welcome') throw new PermanentError(`Unknown template ${name}.`, { key: name });
 *   return 'Hello!';
 * }
 * console.log(templateOf('welcome')); // 'Hello!'
 * ```
 */
export class PermanentError extends EffectivelyOnceError {
  override readonly name: string = 'PermanentError';
}
