/**
 * Errors of the transaction strategy: a transaction that breaks a
 * `TransactWriteItems` limit, one of the handler's own conditions failing
 * (with the per-action cancellation reasons), and a cancellation worth
 * retrying. Nothing of the transaction was written in any of these cases.
 */
import { EffectivelyOnceError, type ErrorContext } from './error-base.js';

/** A transaction would break a `TransactWriteItems` limit (count, duplicate item, size). */
export class TransactionLimitError extends EffectivelyOnceError {
  override readonly name = 'TransactionLimitError';
}

/**
 * One of the handler's own transaction conditions failed (not the idempotency one). Nothing was written.
 *
 * @example
 * ```ts
 * import { BusinessConflictError } from 'effectively-once';
 *
 * // Which of the handler's actions refused (indexes are positions in `tx`).
 * function refusedActions(err: unknown): number[] {
 *   if (!(err instanceof BusinessConflictError)) return [];
 *   return err.reasons.filter((r) => r.code === 'ConditionalCheckFailed').map((r) => r.index);
 * }
 * ```
 */
export class BusinessConflictError extends EffectivelyOnceError {
  override readonly name = 'BusinessConflictError';
  /** Per-action cancellation reasons as DynamoDB returned them (index = action position). */
  readonly reasons: ReadonlyArray<CancellationReasonInfo>;

  constructor(message: string, reasons: ReadonlyArray<CancellationReasonInfo>, context: ErrorContext = {}) {
    super(message, context);
    this.reasons = reasons;
  }
}

/**
 * A transaction was cancelled for a reason worth retrying (conflict, throttling). Nothing was written.
 * The middlewares commit again within the invocation first (3 commits in all, never into the
 * safety margin); a record or event fails with this error only when all were cancelled.
 *
 * @example
 * ```ts
 * import { TransactionRetryableError } from 'effectively-once';
 *
 * // Safe to run again as it is: nothing of the transaction was applied.
 * const retryable = (err: unknown): boolean => err instanceof TransactionRetryableError;
 * ```
 */
export class TransactionRetryableError extends EffectivelyOnceError {
  override readonly name = 'TransactionRetryableError';
}

/** One entry of `TransactionCanceledException.CancellationReasons`, unmarshalled. */
export interface CancellationReasonInfo {
  /** Position of the action in the handler's transaction (the idempotency item is not counted). */
  readonly index: number;
  /** DynamoDB's code, e.g. `ConditionalCheckFailed`, `TransactionConflict`, `None`. */
  readonly code: string;
  readonly message?: string;
  /** The item as it was, when `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` was set on that action. */
  readonly item?: Record<string, unknown>;
}
