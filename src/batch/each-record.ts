/**
 * `eachRecord`: the per-record handler runner of every batch source (SQS,
 * Kinesis, DynamoDB Streams, Kafka). Bounded concurrency; ordered lanes
 * (FIFO message groups, shards, partitions) run in order and stop at the
 * first failure; records not yet started when the deadline nears are left
 * for the retry.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { is, resolveOptions, type RulesOf } from '../engine/options.js';
import { runLanes } from './schedule.js';
import { sourceOfEvent, type PlainSource } from '../sources/event-sources.js';
import type { KafkaBatchResponse, KafkaEvent, KafkaRecord } from '../sources/kafka.js';
import { isRefusal } from '../sources/source.js';
import { remainingTime } from '../engine/time.js';
import { runnerFor, type BatchRunner, type NotStartedReason, type RecordHandler } from './runner-link.js';
import { disabledTransaction } from './disabled-tx.js';
import { withSignal } from '../engine/heartbeat.js';

/** Options of {@link eachRecord}. */
export interface EachRecordOptions {
  /**
   * Records (or FIFO groups) processed at once. Default 10, SQS's default
   * batch size: a whole batch then needs only two writes in a row per record
   * (claim, complete). Set it to your BatchSize for larger batches.
   */
  readonly concurrency?: number;
}

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
): (event: BatchEventOf<TRecord>, context: Context) => Promise<BatchResponseOf<TRecord>>;
/** {@link eachRecord} with the result type given (`eachRecord<Receipt>(...)`): SQS records. */
export function eachRecord<TResult>(
  fn: RecordHandler<TResult>,
  options?: EachRecordOptions,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
// `never`: each overload's handler takes its own record and event types.
export function eachRecord(
  fn: RecordHandler<unknown, never>,
  options: EachRecordOptions = {},
): (event: never, context: Context) => Promise<unknown> {
  // The source the records come from decides their type at run time.
  return eachRecordOver(fn as RecordHandler<unknown, unknown>, options, sourceOfEvent);
}

/** The source of an event's records when no middleware is in front (the claim-only entry knows SQS alone). */
export type PlainSourceOf = (event: unknown) => PlainSource;

const eachRecordDefaults = { concurrency: 10 } as const;
const eachRecordRules = { concurrency: is.positiveInt } satisfies RulesOf<EachRecordOptions>;

/** {@link eachRecord} with the plain runner's source lookup given by the entry point. */
export function eachRecordOver(
  fn: RecordHandler<unknown, unknown>,
  options: EachRecordOptions,
  sourceOf: PlainSourceOf,
): (event: unknown, context: Context) => Promise<unknown> {
  if (typeof fn !== 'function') throw new TypeError('eachRecord: the first argument must be a function.');
  const { concurrency } = resolveOptions('eachRecord', options, eachRecordRules, eachRecordDefaults);

  return async function eachRecordHandler(event: unknown, context: Context): Promise<unknown> {
    // A middleware's runner reads records through its own source; without one, the event says which source.
    const runner = runnerFor(event, context) ?? plainRunner(event, sourceOf(event));
    runner.begin?.();
    const pastDeadline = () => remainingTime(context) < runner.safetyMarginMs;
    await runLanes(runner.records, {
      concurrency,
      laneOf: (record) => (runner.laneOf === undefined ? runner.source.read(record).lane : runner.laneOf(record)),
      run: async (record) => {
        if (pastDeadline()) {
          runner.skip(record, 'deadline');
          return false;
        }
        return runner.execute(record, fn, context);
      },
      skip: (record) => runner.skip(record, pastDeadline() ? 'deadline' : 'group-failed'),
    });
    return runner.source.respond(runner.failures());
  };
}

/** Runner used when no idempotency middleware is in front: plain partial batch semantics. */
function plainRunner(event: unknown, { source: plain, middleware }: PlainSource): BatchRunner<unknown> {
  const records = plain.records(event);
  if (isRefusal(records)) throw new TypeError(`eachRecord: the event is ${records.refused}.`);
  const source = plain; // a plain reader decodes nothing: reading a record again is cheap
  const idOf = (record: unknown): string => source.read(record).id;
  const failed = new Set<string>();
  const tx = disabledTransaction(`use ${middleware}({ strategy: transaction() }) from 'effectively-once' in front of eachRecord.`);
  return {
    source,
    owner: 'eachRecord',
    records,
    safetyMarginMs: 0,
    async execute(record: unknown, fn: RecordHandler<unknown, unknown>, context: Context): Promise<boolean> {
      const messageId = idOf(record);
      try {
        const base = { key: messageId, messageId, tx, context, attempt: source.read(record).attempt };
        await fn(record, withSignal(base));
        return true;
      } catch (error) {
        failed.add(messageId);
        // Without the middleware there is no batch log line: say why this record comes back.
        const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
        console.error(JSON.stringify({ level: 'ERROR', message: 'record failed', messageId, error: { name, message } }));
        return false;
      }
    },
    skip(record: unknown, _reason: NotStartedReason): void {
      failed.add(idOf(record));
    },
    failures(): string[] {
      return records.map(idOf).filter((id) => failed.has(id));
    },
  };
}
