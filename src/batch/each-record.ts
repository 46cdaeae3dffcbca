/**
 * `eachRecord`: the per-record handler runner. Bounded concurrency; FIFO
 * message groups run in order and stop at the first failure; records not
 * yet started when the deadline nears are left for the retry.
 */
import type { Context, SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { is, resolveOptions, type RulesOf } from '../engine/options.js';
import { runLanes } from './schedule.js';
import { sourceOfEvent, type AnySource } from '../sources/event-sources.js';
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

const eachRecordDefaults = { concurrency: 10 } as const;
const eachRecordRules = { concurrency: is.positiveInt } satisfies RulesOf<EachRecordOptions>;

/**
 * Wraps a per-record function into an SQS batch handler that returns a
 * partial batch response. Behind `sqsIdempotency` it runs only the records
 * this invocation claimed, under the middleware's strategy. It finds the
 * middleware's run by the event it is handed, else by the Lambda context, so a
 * middleware in between may replace the event or its records (keeping each
 * `messageId`): the handler gets those record objects; a record dropped there
 * fails and comes back.
 *
 * @throws TypeError (the handler rejects; every claimed record comes back) when
 * the middleware ran but the event cannot be matched to its run: a record it
 * did not hand on, a message twice, no `Records` array.
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
 * import { eachRecord } from 'effectively-once';
 *
 * export const handler = middy<SQSEvent, SQSBatchResponse>().handler(
 *   eachRecord(async (record) => {
 *     console.log(record.body);
 *   }),
 * );
 * ```
 */
export function eachRecord<TResult, TRecord = SQSRecord>(
  fn: RecordHandler<TResult, TRecord>,
  options: EachRecordOptions = {},
): (event: { Records: TRecord[] }, context: Context) => Promise<SQSBatchResponse> {
  return eachRecordOver(fn, options, sourceOfEvent);
}

/** The source of an event's records when no middleware is in front (the claim-only entry knows SQS alone). */
export type PlainSourceOf = (event: { readonly Records: readonly unknown[] }) => AnySource;

/** {@link eachRecord} with the plain runner's source lookup given by the entry point. */
export function eachRecordOver<TResult, TRecord>(
  fn: RecordHandler<TResult, TRecord>,
  options: EachRecordOptions,
  sourceOf: PlainSourceOf,
): (event: { Records: TRecord[] }, context: Context) => Promise<SQSBatchResponse> {
  if (typeof fn !== 'function') throw new TypeError('eachRecord: the first argument must be a function.');
  const { concurrency } = resolveOptions('eachRecord', options, eachRecordRules, eachRecordDefaults);

  return async function eachRecordHandler(event: { Records: TRecord[] }, context: Context): Promise<SQSBatchResponse> {
    // A middleware's runner reads records through its own source; without one, the event's records say which source.
    const runner = (runnerFor(event, context) as BatchRunner<TRecord> | undefined) ?? plainRunner<TRecord>(event, sourceOf);
    runner.begin?.();
    const pastDeadline = () => remainingTime(context) < runner.safetyMarginMs;
    await runLanes(runner.records, {
      concurrency,
      laneOf: (record) => (runner.laneOf === undefined ? runner.source.lane(record) : runner.laneOf(record)),
      run: async (record) => {
        if (pastDeadline()) {
          runner.skip(record, 'deadline');
          return false;
        }
        return runner.execute(record, fn as RecordHandler<unknown, TRecord>, context);
      },
      skip: (record) => runner.skip(record, pastDeadline() ? 'deadline' : 'group-failed'),
    });
    // SQS's response shape, also Kinesis' and DynamoDB Streams' (`batchItemFailures` of `itemIdentifier`s).
    return runner.source.respond(runner.failures()) as SQSBatchResponse;
  };
}

/** Runner used when no idempotency middleware is in front: plain partial batch semantics. */
function plainRunner<TRecord>(event: { Records: TRecord[] }, sourceOf: PlainSourceOf): BatchRunner<TRecord> {
  if (event === null || typeof event !== 'object' || !Array.isArray(event.Records)) {
    throw new TypeError('eachRecord: the event is not an SQS event, nor a Kinesis or DynamoDB Streams one (it has no Records array).');
  }
  const source = sourceOf(event);
  const idOf = (record: TRecord): string => source.itemId(record) ?? '';
  const failed = new Set<string>();
  const tx = disabledTransaction(`use ${source.owner}({ strategy: "transaction" }) from 'effectively-once' in front of eachRecord.`);
  return {
    source: source as BatchRunner<TRecord>['source'],
    records: event.Records,
    safetyMarginMs: 0,
    async execute(record: TRecord, fn: RecordHandler<unknown, TRecord>, context: Context): Promise<boolean> {
      const messageId = idOf(record);
      try {
        const base = { key: messageId, messageId, tx, context, attempt: source.attempt(record) };
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
    skip(record: TRecord, _reason: NotStartedReason): void {
      failed.add(idOf(record));
    },
    failures(): string[] {
      return event.Records.map(idOf).filter((id) => failed.has(id));
    },
  };
}
