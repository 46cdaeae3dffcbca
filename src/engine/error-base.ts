/**
 * The root of the error tree: `EffectivelyOnceError` and the `ErrorContext`
 * every error may carry (cause, business key, existing record). The
 * subclasses live by family in record-errors.ts, transaction-errors.ts
 * and errors.ts, which re-exports them all.
 */
import type { IdempotencyRecord } from './record.js';

/** Context every error may carry. */
export interface ErrorContext {
  /** The original error, if this one wraps another. */
  readonly cause?: unknown;
  /** The business key (as extracted, before hashing). */
  readonly key?: string;
  /** The idempotency record found in the store, when the error is about it. */
  readonly existing?: IdempotencyRecord;
}

/** What was thrown, as its name and message (`Error` and its text when it is not an `Error`), for logs and stored text. */
export function errorParts(error: unknown): { readonly name: string; readonly message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
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
