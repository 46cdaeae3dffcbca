/**
 * `eachRecord`: the per-record handler runner of every batch source (SQS,
 * Kinesis, DynamoDB Streams, Kafka), typed by the record and finding the
 * source of an event without a middleware in front (event-sources.ts). The
 * run itself is the lifecycle's (src/batch/each-record.ts).
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { eachRecordOver, type EachRecordOptions } from '../batch/each-record.js';
import type { RecordHandler, TransactionRecordHandler } from '../batch/runner-link.js';
import { sourceOfEvent } from './event-sources.js';
import type { KafkaBatchResponse, KafkaEvent, KafkaRecord } from './kafka/kafka.js';

// The types below follow the record type: inferred from the handler's
// annotation, or from the Middy handler `eachRecord` is handed to (through
// the event its middleware takes); `unknown` when nothing says: SQS.
// `KafkaEventOf` is `KafkaEvent` with `TRecord` in its records' place, so
// the record type can be read from a Kafka event; for `KafkaRecord` it is
// `KafkaEvent` itself.
type KafkaEventOf<TRecord> = {
  [K in keyof KafkaEvent]: K extends 'records' ? Readonly<Record<string, readonly TRecord[]>> : KafkaEvent[K];
};

/** The batch event of `TRecord`s: a Kafka event for Kafka records, else `{ Records }` (`SQSEvent` by default). */
export type BatchEventOf<TRecord> = unknown extends TRecord
  ? SQSEvent
  : [TRecord] extends [KafkaRecord]
    ? KafkaEventOf<TRecord>
    : { Records: TRecord[] };

/** The partial batch response of `TRecord`s: Kafka's names partitions and offsets, the others' message ids or sequence numbers. */
export type BatchResponseOf<TRecord> = [TRecord] extends [KafkaRecord] ? KafkaBatchResponse : SQSBatchResponse;

/** What Middy hands a handler as its third argument: the signal it aborts at its early timeout (`timeoutEarlyInMillis`). */
type HandlerOptions = { readonly signal?: AbortSignal };

/**
 * The record handler `eachRecord` takes. A conditional type on purpose: it
 * lets TypeScript give an unannotated `record` the type the Middy handler
 * expects (inferred from the return type, through Middy's generic
 * `.handler`), which a plain function type would not. For the same reason
 * `eachRecord`'s type parameters have no defaults (one would be used
 * instead); its second overload serves `eachRecord<Result>(...)`.
 */
type HandlerOf<TResult, TRecord> = [TRecord] extends [unknown]
  ? RecordHandler<TResult, unknown extends TRecord ? SQSRecord : TRecord>
  : never;

/** {@link HandlerOf} for `eachRecord.inTransaction`: the handler's context has `tx`. */
type TransactionHandlerOf<TResult, TRecord> = [TRecord] extends [unknown]
  ? TransactionRecordHandler<TResult, unknown extends TRecord ? SQSRecord : TRecord>
  : never;

/**
 * Wraps a per-record function into a batch handler that returns the partial
 * batch response of its source: SQS, Kinesis, DynamoDB Streams (by the
 * records' `eventSource`) or Kafka (`records` by topic-partition). Behind
 * the source's middleware (`sqsIdempotency`, `kafkaIdempotency`, ...) it runs
 * only the records this invocation owns, under the middleware's strategy.
 * It finds the middleware's run by the event it is handed, else by the
 * Lambda context, so a middleware in between may replace the event or its
 * records (keeping each id): the handler gets those record objects; a
 * record dropped there fails and comes back.
 *
 * The record's type follows the event: `SQSRecord` by default, `KafkaRecord`
 * in `middy<KafkaEvent, KafkaBatchResponse>()`, and the `Records` element of
 * the others' events; the handler's type follows it (the Kafka response for
 * Kafka records).
 *
 * @throws TypeError (the handler rejects; every claimed record comes back) when
 * the middleware ran but the event cannot be matched to its run: a record it
 * did not hand on, a message twice, no records. Without a middleware: when
 * the event is not one of these sources'.
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
 * import { eachRecord, kafkaValue, type KafkaBatchResponse, type KafkaEvent } from 'effectively-once';
 *
 * export const handler = middy<SQSEvent, SQSBatchResponse>().handler(
 *   eachRecord(async (record) => {
 *     console.log(record.body);
 *   }),
 * );
 *
 * // The same for Kafka: `record` is a KafkaRecord, the response Kafka's.
 * export const kafkaHandler = middy<KafkaEvent, KafkaBatchResponse>().handler(
 *   eachRecord(async (record) => {
 *     console.log(record.topic, record.offset, kafkaValue(record));
 *   }),
 * );
 * ```
 */
export function eachRecord<TResult, TRecord>(
  fn: HandlerOf<TResult, TRecord>,
  options?: EachRecordOptions,
): (event: BatchEventOf<TRecord>, context: Context, options?: HandlerOptions) => Promise<BatchResponseOf<TRecord>>;
/** {@link eachRecord} with the result type given (`eachRecord<Receipt>(...)`): SQS records. */
export function eachRecord<TResult>(
  fn: RecordHandler<TResult>,
  options?: EachRecordOptions,
): (event: SQSEvent, context: Context, options?: HandlerOptions) => Promise<SQSBatchResponse>;
// `never`: each overload's handler takes its own record and event types.
export function eachRecord(
  fn: RecordHandler<unknown, never>,
  options: EachRecordOptions = {},
): (event: never, context: Context, options?: HandlerOptions) => Promise<unknown> {
  // The source the records come from decides their type at run time.
  return eachRecordOver(fn as RecordHandler<unknown, unknown>, options, sourceOfEvent, false);
}

/**
 * {@link eachRecord} for the transaction strategy: each record's handler is
 * also handed `tx`, a `TransactionBuilder` whose writes commit in one
 * `TransactWriteItems` with the record's idempotency record when the handler
 * returns (nothing is written when it throws). Only there does a handler
 * get `tx`: in `eachRecord`'s handler it is a type error. Behind a
 * middleware whose strategy is not `transaction()`, or none, every record
 * fails (and comes back) with a `TypeError` naming both fixes, before its
 * handler runs: never a run whose writes are dropped.
 *
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
 * import { eachRecord, jsonBody, sqsIdempotency, transaction, type TransactionalIdempotencyStore } from 'effectively-once';
 *
 * declare const store: TransactionalIdempotencyStore; // a DynamoDBIdempotencyStore
 * export const handler = middy<SQSEvent, SQSBatchResponse>()
 *   .use(sqsIdempotency({ store, consumer: 'points', strategy: transaction(), key: (r) => jsonBody<{ orderNo: string }>(r).orderNo }))
 *   .handler(
 *     eachRecord.inTransaction(async (record, { tx }) => {
 *       const { orderNo } = jsonBody<{ orderNo: string }>(record);
 *       tx.put({ TableName: 'points', Item: { pk: `order#${orderNo}`, points: 10 }, ConditionExpression: 'attribute_not_exists(pk)' });
 *     }),
 *   );
 * ```
 */
function inTransaction<TResult, TRecord>(
  fn: TransactionHandlerOf<TResult, TRecord>,
  options?: EachRecordOptions,
): (event: BatchEventOf<TRecord>, context: Context, options?: HandlerOptions) => Promise<BatchResponseOf<TRecord>>;
/** {@link inTransaction} with the result type given (`eachRecord.inTransaction<Receipt>(...)`): SQS records. */
function inTransaction<TResult>(
  fn: TransactionRecordHandler<TResult>,
  options?: EachRecordOptions,
): (event: SQSEvent, context: Context, options?: HandlerOptions) => Promise<SQSBatchResponse>;
function inTransaction(
  fn: TransactionRecordHandler<unknown, never>,
  options: EachRecordOptions = {},
): (event: never, context: Context, options?: HandlerOptions) => Promise<unknown> {
  // The runner hands this handler `tx` (inTransaction: true), or fails the record without calling it.
  return eachRecordOver(fn as unknown as RecordHandler<unknown, unknown>, options, sourceOfEvent, true);
}

eachRecord.inTransaction = inTransaction;
