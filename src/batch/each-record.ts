/**
 * The per-record handler runner behind `eachRecord` (src/sources/each-record.ts knows the sources): bounded concurrency;
 * ordered lanes (FIFO message groups, shards, partitions) run in order and stop at the first failure; records not yet
 * started when the deadline nears are left for the retry.
 */
import type { Context } from 'aws-lambda';
import { is, resolveOptions, type RulesOf } from '../engine/options.js';
import { runLanes } from './schedule.js';
import { isRefusal, type PlainSource } from '../engine/source.js';
import { remainingTime } from '../engine/time.js';
import type { NotStartedReason } from '../engine/settle.js';
import { notInTransaction, runnerFor, type BatchRunner, type HandlerCall, type RecordHandler } from './runner-link.js';
import { handlerSignal, withSignal } from '../engine/heartbeat.js';
import { errorParts } from '../engine/errors.js';

/** Options of {@link eachRecord}. */
export interface EachRecordOptions {
  /**
   * Records (or FIFO groups) processed at once. Default 10, SQS's default batch size: a whole batch then needs only two
   * writes in a row per record (claim, complete). Set it to your BatchSize for larger batches.
   */
  readonly concurrency?: number;
}

/** The source of an event's records when no middleware is in front (given by sources/: batch/ imports none of them). */
export type PlainSourceOf = (event: unknown) => PlainSource;

const eachRecordDefaults = { concurrency: 10 } as const;
const eachRecordRules = { concurrency: is.positiveInt } satisfies RulesOf<EachRecordOptions>;

/**
 * {@link eachRecord} (or, `inTransaction`, `eachRecord.inTransaction`: its
 * records are handed `tx`) with the plain runner's source lookup given by the
 * entry point.
 */
export function eachRecordOver(
  fn: RecordHandler<unknown, unknown>,
  options: EachRecordOptions,
  sourceOf: PlainSourceOf,
  inTransaction: boolean,
): (event: unknown, context: Context, options?: unknown) => Promise<unknown> {
  const name = inTransaction ? 'eachRecord.inTransaction' : 'eachRecord';
  if (typeof fn !== 'function') throw new TypeError(`${name}: the first argument must be a function.`);
  const { concurrency } = resolveOptions(name, options, eachRecordRules, eachRecordDefaults);

  // `options`: Middy's third argument, `{ signal }`, aborted when it answers at its early timeout.
  return async function eachRecordHandler(event: unknown, context: Context, options?: unknown): Promise<unknown> {
    // A middleware's runner reads records through its own source; without one, the event says which source.
    const runner = runnerFor(event, context) ?? plainRunner(event, sourceOf(event));
    runner.begin?.();
    const call: HandlerCall = { context, signal: handlerSignal(options), inTransaction };
    const pastDeadline = () => call.signal?.aborted === true || remainingTime(context) < runner.safetyMarginMs;
    await runLanes(runner.records, {
      concurrency,
      laneOf: (record) => (runner.laneOf === undefined ? runner.source.read(record).lane : runner.laneOf(record)),
      run: async (record) => {
        if (!pastDeadline()) return runner.execute(record, fn, call);
        runner.skip(record, 'deadline');
        return false;
      },
      skip: (record) => runner.skip(record, pastDeadline() ? 'deadline' : 'group-failed'),
    });
    return runner.source.respond(runner.failures());
  };
}

/**
 * Runner used when no idempotency middleware is in front: plain partial batch
 * semantics. `eachRecord.inTransaction` fails every record: nothing would
 * commit its writes.
 */
function plainRunner(event: unknown, { source: plain, middleware }: PlainSource): BatchRunner<unknown> {
  const records = plain.records(event);
  if (isRefusal(records)) throw new TypeError(`eachRecord: the event is ${records.refused}.`);
  const source = plain; // a plain reader decodes nothing: reading a record again is cheap
  const idOf = (record: unknown): string => source.read(record).id;
  const failed = new Set<string>();
  return {
    source,
    owner: 'eachRecord',
    records,
    safetyMarginMs: 0,
    async execute(record: unknown, fn: RecordHandler<unknown, unknown>, { context, signal, inTransaction }: HandlerCall): Promise<boolean> {
      const messageId = idOf(record);
      try {
        if (inTransaction === true) throw new TypeError(notInTransaction('eachRecord', middleware, false));
        const base = { key: messageId, messageId, context, attempt: source.read(record).attempt };
        await fn(record, withSignal(base, signal));
        return true;
      } catch (error) {
        failed.add(messageId);
        // Without the middleware there is no batch log line: say why this record comes back.
        console.error(JSON.stringify({ level: 'ERROR', message: 'record failed', messageId, error: errorParts(error) }));
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
