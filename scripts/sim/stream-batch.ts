/**
 * One shard batch through a stream event source mapping, as Lambda runs it:
 * invoke; on a partial batch response checkpoint before the lowest reported
 * sequence number and retry from there; on a thrown error (or a response
 * Lambda cannot honour) retry the batch, or split it in two when
 * bisect-on-error is on; after `maxRetries` hand the records left to the
 * on-failure destination and move past them. The shard never goes on before
 * the batch is done: records run in sequence order.
 */
import type { Context } from 'aws-lambda';
import type { Clock } from '../../src/engine/clock.js';
import { InvalidBatchResponseError } from './errors.js';
import { lambdaContext } from '../../src/testing/events.js';
import { invoke, type InvocationResult, type LambdaHandler } from '../../src/testing/invocation.js';
import { parseBatchResponse } from './sqs-mapping.js';

/** Why records went to the on-failure destination. */
export type StreamFailureReason = 'retries-exhausted' | 'record-age';

/** Records the mapping gave up on, as handed to `onFailure`. */
export interface StreamFailure<TRecord> {
  readonly shardId: string;
  readonly reason: StreamFailureReason;
  /** The records skipped, in sequence order. */
  readonly records: readonly TRecord[];
  /** The last invocation's error (thrown, or the failure reported), if any. */
  readonly error: unknown;
}

/** How one invocation of a shard batch ended. */
export interface StreamInvocationReport {
  readonly shardId: string;
  /** Sequence numbers of the records the invocation got. */
  readonly sequenceNumbers: readonly string[];
  readonly outcome: 'succeeded' | 'partial' | 'threw' | 'invalid-response' | 'crashed' | 'timed-out';
  /** Partial: the lowest sequence number reported, where the shard's checkpoint stays. */
  readonly failedAt?: string;
  readonly error?: unknown;
}

/** What a batch needs from the poller. */
export interface BatchRun<TRecord> {
  readonly shardId: string;
  readonly handler: LambdaHandler<{ Records: TRecord[] }, unknown>;
  readonly sequenceOf: (record: TRecord) => string;
  readonly arrivedAt: (record: TRecord) => number;
  readonly bisectOnError: boolean;
  readonly maxRetries: number;
  readonly maxRecordAgeMs: number | undefined;
  readonly reportBatchItemFailures: boolean;
  readonly timeoutMs: number;
  readonly functionName: string;
  readonly clock: Clock;
  readonly onFailure: (failure: StreamFailure<TRecord>) => void | Promise<void>;
  readonly onInvoke: (report: StreamInvocationReport) => void;
}

type Verdict = { readonly done: number; readonly error?: unknown };

/** How many leading records of the batch are done, by Lambda's rules for stream responses. */
function verdict<TRecord>(
  run: BatchRun<TRecord>,
  records: readonly TRecord[],
  result: InvocationResult<unknown>,
): Verdict & { report: StreamInvocationReport } {
  const sequenceNumbers = records.map(run.sequenceOf);
  const base = { shardId: run.shardId, sequenceNumbers };
  if (result.kind !== 'returned') return { done: 0, error: result.error, report: { ...base, outcome: result.kind, error: result.error } };
  if (!run.reportBatchItemFailures) return { done: records.length, report: { ...base, outcome: 'succeeded' } };
  let failed: Set<string>;
  try {
    failed = parseBatchResponse(result.value, new Set(sequenceNumbers));
  } catch (error) {
    if (!(error instanceof InvalidBatchResponseError)) throw error;
    return { done: 0, error, report: { ...base, outcome: 'invalid-response', error } };
  }
  const first = sequenceNumbers.findIndex((s) => failed.has(s));
  if (first === -1) return { done: records.length, report: { ...base, outcome: 'succeeded' } };
  const error = new Error(`the handler reported ${sequenceNumbers[first]} as failed`);
  return { done: first, error, report: { ...base, outcome: 'partial', failedAt: sequenceNumbers[first] as string } };
}

async function invokeOnce<TRecord>(run: BatchRun<TRecord>, records: readonly TRecord[]): Promise<Verdict & { threw: boolean }> {
  const context: Context = lambdaContext({ functionName: run.functionName, timeoutMs: run.timeoutMs, clock: run.clock });
  const result = await invoke(run.handler, { Records: [...records] }, { context, timeoutMs: run.timeoutMs, clock: run.clock });
  const v = verdict(run, records, result);
  run.onInvoke(v.report);
  return { ...v, threw: v.report.outcome !== 'succeeded' && v.report.outcome !== 'partial' };
}

/** Drops (to the destination) the leading records older than the maximum record age. */
async function dropExpired<TRecord>(run: BatchRun<TRecord>, records: readonly TRecord[]): Promise<readonly TRecord[]> {
  if (run.maxRecordAgeMs === undefined) return records;
  const oldest = run.clock.now() - run.maxRecordAgeMs;
  const expired = records.filter((r) => run.arrivedAt(r) < oldest);
  if (expired.length === 0) return records;
  await run.onFailure({ shardId: run.shardId, reason: 'record-age', records: expired, error: undefined });
  return records.filter((r) => run.arrivedAt(r) >= oldest);
}

/**
 * Runs `records` (one shard, in order) until every one is done or handed to
 * the destination. `retriesLeft` is shared with the halves of a bisection.
 */
export async function runShardBatch<TRecord>(
  run: BatchRun<TRecord>,
  records: readonly TRecord[],
  retriesLeft = run.maxRetries,
): Promise<void> {
  let pending = await dropExpired(run, records);
  let left = retriesLeft;
  while (pending.length > 0) {
    const v = await invokeOnce(run, pending);
    pending = pending.slice(v.done);
    if (pending.length === 0) return;
    if (v.threw && run.bisectOnError && pending.length > 1) {
      // Splitting is not a retry: each half keeps the retries left.
      const half = Math.ceil(pending.length / 2);
      await runShardBatch(run, pending.slice(0, half), left);
      await runShardBatch(run, pending.slice(half), left);
      return;
    }
    if (left <= 0) {
      await run.onFailure({ shardId: run.shardId, reason: 'retries-exhausted', records: pending, error: v.error });
      return;
    }
    left -= 1;
    pending = await dropExpired(run, pending);
  }
}
