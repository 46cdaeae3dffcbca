/**
 * A local stream event source mapping: reads a real Kinesis stream (e.g.
 * kinesalite) or DynamoDB stream (e.g. DynamoDB Local's) shard by shard and
 * invokes a handler with the Lambda event AWS would build, one batch per
 * shard at a time (parallelization factor 1), so tests and `npm start` run
 * real handlers on real streams. See `runShardBatch` for the retry rules.
 */
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { systemClock, type Clock } from '../../src/engine/clock.js';
import { checkOptions, is } from '../../src/engine/options.js';
import type { LambdaHandler } from '../../src/testing/invocation.js';
import { clockRule, intIn, positiveMs, required } from '../../src/testing/rules.js';
import { runShardBatch, type StreamFailure, type StreamInvocationReport } from './stream-batch.js';
import { dynamoDBStreamsShardReader, kinesisShardReader, type ShardInfo, type ShardReader } from './stream-shards.js';

/** A Kinesis stream to poll, through your client (for kinesalite: `requestHandler: new NodeHttpHandler()`). */
export interface KinesisPollerSource {
  readonly kind: 'kinesis';
  readonly client: KinesisClient;
  readonly streamName: string;
}

/** A DynamoDB stream to poll (the table's `LatestStreamArn`). */
export interface DynamoDBStreamsPollerSource {
  readonly kind: 'dynamodb-streams';
  readonly client: DynamoDBStreamsClient;
  readonly streamArn: string;
}

/** The stream a {@link streamPoller} reads. */
export type StreamPollerSource = KinesisPollerSource | DynamoDBStreamsPollerSource;

/** The Lambda record type of a source. */
export type StreamRecordOf<S extends StreamPollerSource> = S extends KinesisPollerSource ? KinesisStreamRecord : DynamoDBRecord;

/** Options of {@link streamPoller}. */
export interface StreamPollerOptions<S extends StreamPollerSource> {
  readonly source: S;
  readonly handler: LambdaHandler<{ Records: StreamRecordOf<S>[] }, unknown>;
  /** Records per invocation (default 100, as Lambda's). */
  readonly batchSize?: number;
  /** Split a failed batch in two and retry each half (default false). */
  readonly bisectOnError?: boolean;
  /** Retries of a failing batch before its records go to `onFailure` (default 2; Lambda's default is unlimited, which would hang a test on a poison record). */
  readonly maxRetries?: number;
  /** Records older than this go to `onFailure` unprocessed (default: no limit). */
  readonly maxRecordAgeMs?: number;
  /** Where a shard is read from the first time (default `TRIM_HORIZON`). */
  readonly startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  /** `functionResponseType: ReportBatchItemFailures` (default true). */
  readonly reportBatchItemFailures?: boolean;
  /** The on-failure destination: records given up on. Default: dropped. */
  readonly onFailure?: (failure: StreamFailure<StreamRecordOf<S>>) => void | Promise<void>;
  /** Told of each invocation. */
  readonly onInvoke?: (report: StreamInvocationReport) => void;
  readonly functionName?: string;
  /** Function timeout (default 30000). */
  readonly timeoutMs?: number;
  readonly clock?: Clock;
  /** Pause between reads of a caught-up stream in `start()` (default 100). */
  readonly idleMs?: number;
}

/** Counters of a poller's run so far. */
export interface StreamPollerStats {
  readonly invocations: number;
  /** Invocations that threw, crashed, timed out or reported a failure. */
  readonly failedInvocations: number;
  /** Records the shards moved past after a success. */
  readonly processed: number;
  /** Records handed to `onFailure`. */
  readonly toDestination: number;
}

/** A running or drainable stream mapping. */
export interface StreamPoller {
  /** Polls every shard until a read of each finds nothing new; resolves with the stats. */
  drain(): Promise<StreamPollerStats>;
  /** Polls in the background until `stop()`. */
  start(): void;
  /** Stops polling after the batches in hand; re-throws a read error that stopped it. */
  stop(): Promise<StreamPollerStats>;
  /** Each shard's checkpoint: the sequence number of the last record it moved past. */
  checkpoints(): ReadonlyMap<string, string>;
  stats(): StreamPollerStats;
}

interface ShardState {
  iterator: string | undefined;
  iteratorAt: number;
  checkpoint: string | undefined;
  ended: boolean;
}

// Kinesis iterators expire after 5 minutes: read from the checkpoint again well before.
const ITERATOR_REFRESH_MS = 60_000;

const rules = (source: unknown) => ({
  source: required({
    expected: 'a stream source ({ kind: "kinesis", client, streamName } or { kind: "dynamodb-streams", client, streamArn })',
    check: () => isSource(source),
  }),
  handler: required(is.fn),
  batchSize: intIn(1, 10_000),
  bisectOnError: is.boolean,
  maxRetries: intIn(0),
  maxRecordAgeMs: positiveMs,
  startingPosition: is.oneOf('TRIM_HORIZON', 'LATEST'),
  reportBatchItemFailures: is.boolean,
  onFailure: is.fn,
  onInvoke: is.fn,
  functionName: is.nonEmptyString,
  timeoutMs: positiveMs,
  clock: clockRule,
  idleMs: positiveMs,
});

function isSource(source: unknown): boolean {
  if (typeof source !== 'object' || source === null) return false;
  const s = source as Partial<Record<string, unknown>>;
  const client = s['client'] as { send?: unknown } | undefined;
  if (typeof client?.send !== 'function') return false;
  return s['kind'] === 'kinesis'
    ? typeof s['streamName'] === 'string'
    : s['kind'] === 'dynamodb-streams' && typeof s['streamArn'] === 'string';
}

function readerOf<S extends StreamPollerSource>(source: S): ShardReader<StreamRecordOf<S>> {
  const reader =
    source.kind === 'kinesis'
      ? kinesisShardReader(source.client, source.streamName)
      : dynamoDBStreamsShardReader(source.client, source.streamArn);
  return reader as ShardReader<StreamRecordOf<S>>;
}

/**
 * A local event source mapping over a real stream: shard iterators, batch
 * size, a checkpoint at the lowest reported sequence number, bisect on error,
 * maximum retries, maximum record age and an on-failure destination. One
 * batch per shard at a time, shards in parallel, a child shard after its parent.
 *
 * @throws TypeError when an option is unknown or of the wrong type.
 * @example
 * ```ts
 * import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
 * import { streamPoller } from './index.js';
 *
 * const client = new DynamoDBStreamsClient({ endpoint: 'http://localhost:8000', region: 'us-east-1' });
 * const poller = streamPoller({
 *   source: { kind: 'dynamodb-streams', client, streamArn: 'arn:aws:dynamodb:ddblocal:000000000000:table/orders/stream/x' },
 *   handler: async (event) => {
 *     console.log(event.Records.map((r) => r.dynamodb?.SequenceNumber));
 *     return { batchItemFailures: [] };
 *   },
 *   batchSize: 10,
 *   bisectOnError: true,
 *   maxRetries: 2,
 *   onFailure: (failure) => console.error('gave up on', failure.records.length, 'records of', failure.shardId),
 * });
 * const stats = await poller.drain();
 * console.log(stats.processed);
 * ```
 */
export function streamPoller<S extends StreamPollerSource>(options: StreamPollerOptions<S>): StreamPoller {
  checkOptions('streamPoller', options, rules(options.source));
  const reader = readerOf(options.source);
  const clock = options.clock ?? systemClock;
  const shards = new Map<string, ShardState>();
  const counts = { invocations: 0, failedInvocations: 0, processed: 0, toDestination: 0 };
  const stats = (): StreamPollerStats => ({ ...counts });
  const batch = {
    handler: options.handler,
    sequenceOf: (r: StreamRecordOf<S>) => reader.sequenceOf(r),
    arrivedAt: (r: StreamRecordOf<S>) => reader.arrivedAt(r),
    bisectOnError: options.bisectOnError ?? false,
    maxRetries: options.maxRetries ?? 2,
    maxRecordAgeMs: options.maxRecordAgeMs,
    reportBatchItemFailures: options.reportBatchItemFailures ?? true,
    timeoutMs: options.timeoutMs ?? 30_000,
    functionName: options.functionName ?? 'stream-consumer',
    clock,
    onFailure: async (failure: StreamFailure<StreamRecordOf<S>>) => {
      counts.toDestination += failure.records.length;
      await options.onFailure?.(failure);
    },
    onInvoke: (report: StreamInvocationReport) => {
      counts.invocations += 1;
      if (report.outcome !== 'succeeded') counts.failedInvocations += 1;
      else counts.processed += report.sequenceNumbers.length;
      if (report.outcome === 'partial') counts.processed += report.sequenceNumbers.indexOf(report.failedAt ?? '');
      options.onInvoke?.(report);
    },
  };

  /** Reads one batch of a shard and runs it; the number of records read. */
  async function step(shardId: string): Promise<number> {
    const state = shards.get(shardId) ?? { iterator: undefined, iteratorAt: 0, checkpoint: undefined, ended: false };
    shards.set(shardId, state);
    if (state.iterator === undefined || clock.now() - state.iteratorAt > ITERATOR_REFRESH_MS) {
      const at = state.checkpoint === undefined ? (options.startingPosition ?? 'TRIM_HORIZON') : { after: state.checkpoint };
      state.iterator = await reader.iterator(shardId, at);
      state.iteratorAt = clock.now();
      if (state.iterator === undefined) {
        state.ended = true;
        return 0;
      }
    }
    const read = await reader.read(shardId, state.iterator, options.batchSize ?? 100);
    // The batch is done (run or handed to the destination) before the shard moves on, so the next iterator stays valid.
    if (read.records.length > 0) await runShardBatch({ ...batch, shardId }, read.records);
    const last = read.records.at(-1);
    if (last !== undefined) state.checkpoint = reader.sequenceOf(last);
    // GetRecords hands back a fresh iterator: it is as new as one asked for now.
    state.iterator = read.next;
    state.iteratorAt = clock.now();
    if (read.next === undefined) state.ended = true;
    return read.records.length;
  }

  /** One read of every shard that may be read now; whether anything moved. */
  async function round(): Promise<boolean> {
    const listed = await reader.shards();
    const ready = listed.filter((s) => shards.get(s.shardId)?.ended !== true && parentDone(s, listed));
    const endedBefore = [...shards.values()].filter((s) => s.ended).length;
    const read = await Promise.all(ready.map((s) => step(s.shardId)));
    const endedAfter = [...shards.values()].filter((s) => s.ended).length;
    return read.some((n) => n > 0) || endedAfter > endedBefore;
  }

  const parentDone = (shard: ShardInfo, listed: readonly ShardInfo[]): boolean =>
    shard.parentShardId === undefined ||
    !listed.some((s) => s.shardId === shard.parentShardId) ||
    shards.get(shard.parentShardId)?.ended === true;

  let running: { stop: () => void; done: Promise<void> } | undefined;
  let failure: { readonly error: unknown } | undefined;
  return {
    async drain() {
      let moved = true;
      while (moved) moved = await round();
      return stats();
    },
    start() {
      if (running !== undefined) return;
      let stopped = false;
      const done = (async () => {
        while (!stopped) {
          if (!(await round())) await new Promise((resolve) => setTimeout(resolve, options.idleMs ?? 100));
        }
      })().catch((error: unknown) => {
        failure = { error };
      });
      running = {
        stop: () => {
          stopped = true;
        },
        done,
      };
    },
    async stop() {
      const current = running;
      running = undefined;
      current?.stop();
      await current?.done;
      const stoppedBy = failure;
      failure = undefined;
      if (stoppedBy !== undefined) throw stoppedBy.error;
      return stats();
    },
    checkpoints: () => new Map([...shards].flatMap(([id, s]) => (s.checkpoint === undefined ? [] : [[id, s.checkpoint] as const]))),
    stats,
  };
}
