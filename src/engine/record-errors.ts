/**
 * Errors about one record that can never be processed as it is: no usable
 * key, a key too long, a body that does not parse or match its schema, a
 * payload that differs from the stored one, an item too large. All extend
 * `InvalidRecordError`: such a record fails alone. A result too large or
 * unstorable is one too, but its record's effect happened: the record is
 * completed without the result, and the error only says why (`resultNotStored`).
 */
import { EffectivelyOnceError, type ErrorContext } from './error-base.js';
import type { StandardSchemaIssue } from './standard-schema.js';

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
 */
export class MissingKeyError extends InvalidRecordError {
  override readonly name: string = 'MissingKeyError';
}

/**
 * The business key is longer than 1024 bytes of UTF-8 and is stored as it is
 * (no `hashKeys`). It extends {@link MissingKeyError} because 0.1.0 threw
 * that for this case: a `catch` written then still catches it.
 */
export class KeyTooLongError extends MissingKeyError {
  override readonly name: string = 'KeyTooLongError';
}

/** The record has no body string, or its body is not valid JSON (e.g. `jsonBody` on `{not json`). */
export class BodyParseError extends InvalidRecordError {
  override readonly name = 'BodyParseError';
}

/**
 * The `key` function threw (an error that is not an `InvalidRecordError`:
 * one, such as `jsonBody`'s `BodyParseError`, is the record's error as it is).
 * `cause` is what it threw. The record fails alone, as invalid.
 */
export class KeyFunctionError extends InvalidRecordError {
  override readonly name = 'KeyFunctionError';
}

/** The `payload` function threw (not an `InvalidRecordError`, which is the record's error as it is); `cause` is what it threw, `key` the record's key. The record fails alone, as invalid. */
export class PayloadFunctionError extends InvalidRecordError {
  override readonly name = 'PayloadFunctionError';
}

/**
 * The record's body does not match its schema (see `jsonBody(record, schema)`).
 * A body never heals: the record is invalid, never retried as a failure.
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
 * import { PayloadMismatchError } from 'effectively-once';
 *
 * // A producer reused a business key for another event (`idempotent()` throws it): worth an alarm, not a retry.
 * const reusedKey = (err: unknown): boolean => err instanceof PayloadMismatchError;
 * ```
 */
export class PayloadMismatchError extends InvalidRecordError {
  override readonly name = 'PayloadMismatchError';
}

/** An item (the idempotency record with its result, or a transaction) would exceed a DynamoDB size limit. */
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
 */
export class UnstorableResultError extends InvalidRecordError {
  override readonly name = 'UnstorableResultError';
}
