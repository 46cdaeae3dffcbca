/**
 * Error classes. One root, `EffectivelyOnceError`; each subclass sets `name`,
 * keeps `cause`, and carries the idempotency key and the existing record
 * where there is one, so a log line says what happened to which event.
 */
import type { IdempotencyRecord } from './record.js';
import type { StandardSchemaIssue } from './standard-schema.js';

/** Context every error may carry. */
export interface ErrorContext {
  /** The original error, if this one wraps another. */
  readonly cause?: unknown;
  /** The business key (as extracted, before hashing). */
  readonly key?: string;
  /** The idempotency record found in the store, when the error is about it. */
  readonly existing?: IdempotencyRecord;
}

/**
 * Root of every error this library throws.
 *
 * @example
 * ```ts
 * import { EffectivelyOnceError, jsonBody } from 'effectively-once';
 * try { jsonBody({ messageId: 'm-1', body: '{' }); } catch (err) {
 *   if (err instanceof EffectivelyOnceError) console.log(err.name); // 'BodyParseError'
 * }
 * ```
 */
export class EffectivelyOnceError extends Error {
  override readonly name: string = 'EffectivelyOnceError';
  /** The business key this error is about, if any. */
  readonly key: string | undefined;
  /** The stored idempotency record this error is about, if any. */
  readonly existing: IdempotencyRecord | undefined;

  constructor(message: string, context: ErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.key = context.key;
    this.existing = context.existing;
  }

  /** A plain object for structured logs. */
  toJSON(): Record<string, unknown> {
    const cause = this.cause instanceof Error ? { name: this.cause.name, message: this.cause.message } : this.cause;
    return { name: this.name, message: this.message, key: this.key, cause };
  }
}

/**
 * A record that can never be processed as it is: no key, a body that does not
 * parse, a payload that differs from the one stored under the same key, or too
 * large to store. It fails alone; the rest of the batch goes on.
 *
 * @example
 * ```ts
 * import { InvalidRecordError, jsonBody } from 'effectively-once';
 * try {
 *   jsonBody({ messageId: 'm-1', body: '{not json' });
 * } catch (err) {
 *   console.log(err instanceof InvalidRecordError); // true: this record fails alone, the batch goes on
 * }
 * ```
 */
export class InvalidRecordError extends EffectivelyOnceError {
  override readonly name: string = 'InvalidRecordError';
}

/**
 * The `key` function returned no usable key: undefined, empty, not a
 * string or number, or not well-formed Unicode (a lone surrogate). A key
 * too long to store is a {@link KeyTooLongError}, a subclass, so code that
 * catches `MissingKeyError` catches it too.
 *
 * @example
 * ```ts
 * import type { SQSRecord } from 'aws-lambda';
 * import { MissingKeyError, jsonBody } from 'effectively-once';
 *
 * // Thrown from a `key` function, it makes this record invalid with your message.
 * const key = (record: SQSRecord): string => {
 *   const { orderNo } = jsonBody<{ orderNo?: string }>(record);
 *   if (orderNo === undefined) throw new MissingKeyError(`Message ${record.messageId} has no orderNo.`);
 *   return orderNo;
 * };
 * ```
 */
export class MissingKeyError extends InvalidRecordError {
  override readonly name: string = 'MissingKeyError';
}

/**
 * The business key is longer than 1024 bytes of UTF-8 and is stored as it is
 * (no `hashKeys`). It extends {@link MissingKeyError} because 0.1.0 threw
 * that for this case: a `catch` written then still catches it.
 *
 * @example
 * ```ts
 * import { KeyTooLongError, MissingKeyError } from 'effectively-once';
 *
 * const err = new KeyTooLongError('The business key is longer than 1024 bytes.', { key: 'k'.repeat(64) });
 * console.log(err.name, err instanceof MissingKeyError); // KeyTooLongError true
 * ```
 */
export class KeyTooLongError extends MissingKeyError {
  override readonly name: string = 'KeyTooLongError';
}

/**
 * The record has no body string, its body is not valid JSON, or the `key`
 * or `payload` function threw while reading it.
 *
 * @example
 * ```ts
 * import { BodyParseError, jsonBody } from 'effectively-once';
 * try {
 *   jsonBody({ messageId: 'm-1', body: '{not json' });
 * } catch (err) {
 *   if (err instanceof BodyParseError) console.log(err.message, err.cause); // the SyntaxError is kept as cause
 * }
 * ```
 */
export class BodyParseError extends InvalidRecordError {
  override readonly name = 'BodyParseError';
}

/**
 * The record's body does not match its schema (see `jsonBody(record, schema)`).
 * A body never heals: the record is invalid, never retried as a failure.
 *
 * @example
 * ```ts
 * import { SchemaValidationError } from 'effectively-once';
 * const err = new SchemaValidationError('Message m-1: orderNo: expected a string', [{ message: 'expected a string', path: ['orderNo'] }]);
 * console.log(err.name, err.issues.length); // SchemaValidationError 1
 * ```
 */
export class SchemaValidationError extends InvalidRecordError {
  override readonly name = 'SchemaValidationError';
  /** The schema's issues, as it reported them. */
  readonly issues: ReadonlyArray<StandardSchemaIssue>;

  constructor(message: string, issues: ReadonlyArray<StandardSchemaIssue>, context: ErrorContext = {}) {
    super(message, context);
    this.issues = issues;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), issues: this.issues };
  }
}

/**
 * The same business key arrived with a different payload than the one already recorded.
 *
 * @example
 * ```ts
 * import { PayloadMismatchError, type RecordOutcome } from 'effectively-once';
 *
 * // A producer reused a business key for another event: worth an alarm, not a retry.
 * const reusedKey = (outcome: RecordOutcome): boolean =>
 *   outcome.kind === 'invalid' && outcome.error instanceof PayloadMismatchError;
 * ```
 */
export class PayloadMismatchError extends InvalidRecordError {
  override readonly name = 'PayloadMismatchError';
}

/**
 * An item (the idempotency record with its result, or a transaction) would exceed a DynamoDB size limit.
 *
 * @example
 * ```ts
 * import { ItemTooLargeError, createTransactionBuilder } from 'effectively-once';
 * try {
 *   createTransactionBuilder().put({ TableName: 'files', Item: { pk: 'f-1', blob: 'x'.repeat(500_000) } });
 * } catch (err) {
 *   if (err instanceof ItemTooLargeError) console.log(err.size, '>', err.limit);
 * }
 * ```
 */
export class ItemTooLargeError extends InvalidRecordError {
  override readonly name = 'ItemTooLargeError';
  /** Size in bytes that was computed. */
  readonly size: number;
  /** The limit in bytes that it exceeds. */
  readonly limit: number;

  constructor(message: string, size: number, limit: number, context: ErrorContext = {}) {
    super(message, context);
    this.size = size;
    this.limit = limit;
  }
}

/**
 * The handler's result cannot be stored: it does not survive JSON (a BigInt,
 * a cycle). Stored results are kept as JSON, which is also what Lambda would
 * have returned to a caller.
 *
 * @example
 * ```ts
 * import { UnstorableResultError } from 'effectively-once';
 * const err = new UnstorableResultError('The result holds a BigInt.', { key: 'order-1' });
 * console.log(err.name); // 'UnstorableResultError'
 * ```
 */
export class UnstorableResultError extends InvalidRecordError {
  override readonly name = 'UnstorableResultError';
}

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
 * import { LeaseLostError, type RecordOutcome } from 'effectively-once';
 *
 * // The effect may have run twice: the lease was too short for this handler.
 * function leaseTooShort(outcome: RecordOutcome): boolean {
 *   return outcome.kind === 'lease-lost' && outcome.error instanceof LeaseLostError;
 * }
 * ```
 */
export class LeaseLostError extends EffectivelyOnceError {
  override readonly name = 'LeaseLostError';
}

/**
 * The Lambda's remaining time fell under the safety margin before this record
 * started, or the batch was answered (a timeout response) before it finished.
 *
 * @example
 * ```ts
 * import { DeadlineError, type RecordOutcome } from 'effectively-once';
 *
 * // Left for the redelivery: raise the function timeout or lower the batch size if this is frequent.
 * const ranOutOfTime = (outcome: RecordOutcome): boolean =>
 *   outcome.kind === 'not-started' && outcome.error instanceof DeadlineError;
 * ```
 */
export class DeadlineError extends EffectivelyOnceError {
  override readonly name = 'DeadlineError';
}

/**
 * A transaction would break a `TransactWriteItems` limit (count, duplicate item, size).
 *
 * @example
 * ```ts
 * import { TransactionLimitError, createTransactionBuilder } from 'effectively-once';
 * const tx = createTransactionBuilder();
 * const addPoints = { TableName: 'accounts', Key: { pk: 'user-1' }, UpdateExpression: 'ADD points :p', ExpressionAttributeValues: { ':p': 1 } };
 * tx.update(addPoints);
 * try {
 *   tx.update(addPoints); // a transaction may touch an item only once
 * } catch (err) {
 *   console.log(err instanceof TransactionLimitError); // true
 * }
 * ```
 */
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

/**
 * Thrown by a handler for a record that will never succeed however often it
 * is retried (an unknown template, a closed account). With the SQS option
 * `permanentFailures`, the record is sent straight to the queue's
 * dead-letter queue and acknowledged instead of burning every receive; without
 * it, it is a failed record like any other.
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
