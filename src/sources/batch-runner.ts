/**
 * The link between `sqsIdempotency` and `eachRecord`. The middleware hands
 * the handler an event holding only the records it owns and registers a
 * runner for that event object; `eachRecord` looks the runner up to run each
 * record under the chosen strategy. Without the middleware, `eachRecord`
 * falls back to a plain partial-batch runner.
 */
import type { Context, SQSBatchItemFailure, SQSEvent, SQSRecord } from 'aws-lambda';
import type { TransactionBuilder } from '../transaction.js';

/** What a per-record handler receives besides the record. */
export interface RecordContext {
  /** The business key (the message id when no middleware is in front). */
  readonly key: string;
  readonly messageId: string;
  /**
   * Transaction builder: with `strategy: 'transaction'` its writes commit in
   * one `TransactWriteItems` with the idempotency record. With any other
   * strategy, using it throws (its writes would otherwise be silently lost).
   */
  readonly tx: TransactionBuilder;
  /** The Lambda context of the invocation. */
  readonly context: Context;
  /** Delivery attempt of this message (SQS `ApproximateReceiveCount`), 1 on first delivery. */
  readonly attempt: number;
}

/** A per-record handler for {@link eachRecord}. Throw to fail the record. */
export type RecordHandler<TResult = unknown> = (record: SQSRecord, ctx: RecordContext) => Promise<TResult> | TResult;

/** Why a record was not started. */
export type NotStartedReason = 'deadline' | 'group-failed';

/** Runs records of one invocation under a strategy. */
export interface BatchRunner {
  /** The records to run, in delivery order. */
  readonly records: readonly SQSRecord[];
  /** A record is not started when the remaining time is under this. */
  readonly safetyMarginMs: number;
  /** The ordered lane of a record (default: its FIFO message group; `undefined`: a lane of its own). */
  laneOf?(record: SQSRecord): string | undefined;
  /** Called once when `eachRecord` starts on the batch. */
  begin?(): void;
  /** Runs one record; resolves whether its FIFO group may go on. Never rejects. */
  execute(record: SQSRecord, fn: RecordHandler, context: Context): Promise<boolean>;
  /** Marks a record as not started. */
  skip(record: SQSRecord, reason: NotStartedReason): void;
  /** The partial batch response for the records this runner was given. */
  failures(): SQSBatchItemFailure[];
}

const runners = new WeakMap<SQSEvent, BatchRunner>();

/** Registers the runner that `eachRecord` uses for this event object. */
export function attachRunner(event: SQSEvent, runner: BatchRunner): void {
  runners.set(event, runner);
}

/** The runner registered for this event, if a middleware registered one. */
export function runnerFor(event: SQSEvent): BatchRunner | undefined {
  return runners.get(event);
}

/** Receive count of a record (1 when the attribute is missing or odd). */
export function attemptOf(record: SQSRecord): number {
  const n = Number(record.attributes?.ApproximateReceiveCount);
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/** FIFO queues are recognised by their ARN, as Lambda itself does. */
export function isFifo(record: SQSRecord): boolean {
  return typeof record.eventSourceARN === 'string' && record.eventSourceARN.endsWith('.fifo');
}

/** The record's FIFO message group; `undefined` on a standard queue. */
export function fifoGroup(record: SQSRecord): string | undefined {
  return isFifo(record) ? (record.attributes?.MessageGroupId ?? '') : undefined;
}

/** Time left in the invocation, ms; unknown (tests, local runs) counts as unlimited and never stops work. */
export function remainingTime(context: Partial<Pick<Context, 'getRemainingTimeInMillis'>> | undefined): number {
  const ms = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : NaN;
  return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
}
