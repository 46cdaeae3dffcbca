/**
 * Error classes: one root, `EffectivelyOnceError`; each subclass sets `name`, keeps `cause`, and carries the key and
 * the existing record where there is one. The one import path for all of them: the errors about claims, leases and
 * deadlines and `PermanentError` here, the root and the record and transaction families re-exported.
 */
import { EffectivelyOnceError, type ErrorContext } from './error-base.js';

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

/** Where a missing idempotency table was looked for: the store's `tableName`, and its client's region and endpoint when known. */
export interface TableLocation {
  readonly tableName: string;
  readonly region?: string | undefined;
  /** A custom endpoint (DynamoDB Local), when the client has one. */
  readonly endpoint?: string | undefined;
}

/**
 * The idempotency table does not exist where the store looks (a wrong
 * `tableName`, a wrong region, or not created yet): DynamoDB answered
 * `ResourceNotFoundException`, kept as `cause`. The message names the table,
 * the region and the fix. Every record comes back (never acknowledged) until
 * the table exists; the batch's log line is `ERROR`.
 */
export class IdempotencyTableNotFoundError extends EffectivelyOnceError {
  override readonly name = 'IdempotencyTableNotFoundError';
  /** The table the store was given. */
  readonly tableName: string;
  /** The client's region, when it has one. */
  readonly region: string | undefined;

  constructor(where: TableLocation, context: ErrorContext = {}) {
    const { tableName, region, endpoint } = where;
    const flags = `--table ${tableName}${region === undefined ? '' : ` --region ${region}`}${endpoint === undefined ? '' : ` --endpoint ${endpoint}`}`;
    const place = `${region === undefined ? 'the client has no region' : `region ${region}`}${endpoint === undefined ? '' : `, endpoint ${endpoint}`}`;
    super(
      `The idempotency table "${tableName}" does not exist (${place}): create it with \`npx effectively-once table create ${flags}\`, or check the store's tableName and the client's region with \`npx effectively-once check ${flags}\`. Every record comes back until it exists.`,
      context,
    );
    this.tableName = tableName;
    this.region = region;
  }
}
