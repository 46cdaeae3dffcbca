/**
 * Runs the variants over the same batches, interleaved: batch 1 goes through
 * every variant, then batch 2, and so on, the first variant rotating with
 * each batch. Connection reuse, the JIT, DynamoDB Local's warm-up and the
 * load other processes put on the machine therefore hit every variant alike.
 */
import { performance } from 'node:perf_hooks';
import type { Context, SQSEvent } from 'aws-lambda';
import { lambdaContext, sqsEvent, sqsRecord } from '../src/testing/index.js';
import type { BatchHandler } from './contenders.js';
import type { CountedClient } from './dynamo.js';
import type { Variant } from './variants.js';
import type { Delivery } from './workload.js';
import type { RequestPattern, SampleLike } from './stats.js';

/**
 * When the first record of a batch got to its effect. A middleware that
 * must finish something for the whole batch first (ours claims every record
 * before running any) shows it here.
 */
export class EffectClock {
  #batchStart = 0;
  #first = Number.NaN;

  /** A batch starts now. */
  start(): void {
    this.#batchStart = performance.now();
    this.#first = Number.NaN;
  }

  /** An effect starts now (wired to the handlers' `onEffect`). */
  readonly mark = (): void => {
    if (Number.isNaN(this.#first)) this.#first = performance.now() - this.#batchStart;
  };

  /** ms from the batch start to the first effect; NaN when no effect ran (all duplicates). */
  get firstMs(): number {
    return this.#first;
  }
}

/**
 * The request pattern a batch's log line named (`requests`): ours' middleware
 * writes one line per batch as it ends, before the handler call returns, and
 * says there which requests it chose for this invocation. The other variants
 * write none.
 */
export class LoggedRequests {
  #requests: RequestPattern | undefined;

  /** A batch starts now: nothing logged yet. */
  start(): void {
    this.#requests = undefined;
  }

  /** A batch line (wired to ours' `logger`). */
  readonly line = (line: { readonly requests?: RequestPattern }): void => {
    this.#requests = line.requests;
  };

  /** What the line of the batch said; undefined when there was none or it named none. */
  get requests(): RequestPattern | undefined {
    return this.#requests;
  }
}

/** One variant ready to run. */
export interface Lane {
  readonly variant: Variant;
  readonly handler: BatchHandler;
  readonly counted: CountedClient;
  readonly effects: EffectClock;
  readonly logged: LoggedRequests;
  readonly samples: BatchSample[];
  /** First unexpected error (a bench that errors is reported, not hidden). */
  error?: string;
}

/** What one batch invocation of one variant did (the fields are documented on `SampleLike`). */
export type BatchSample = SampleLike;

/** How to run a sequence of batches. */
export interface RunOptions {
  /** Keep the samples (false for the warm-up). */
  readonly record: boolean;
  /** Parts of the run measured separately. */
  readonly slices: number;
  readonly label: string;
  readonly progress: (line: string) => void;
  /** Reads DynamoDB Local's CPU time so far (ms), when known. */
  readonly serverCpu: (() => number) | undefined;
}

/** Plenty of time: ours does not start records within its safety margin of the deadline. */
function context(memoryMb: number | undefined): Context {
  return lambdaContext({ functionName: 'bench', timeoutMs: 60_000, ...(memoryMb === undefined ? {} : { memoryLimitInMB: memoryMb }) });
}

function toEvent(batch: readonly Delivery[]): SQSEvent {
  return sqsEvent(batch.map((d) => sqsRecord({ body: d.event, messageId: d.messageId })));
}

/** Calls a handler; a thrown error (Powertools throws when every record failed) counts as the whole batch failed. */
async function call(lane: Lane, event: SQSEvent, ctx: Context): Promise<number> {
  try {
    return (await lane.handler(event, ctx)).batchItemFailures.length;
  } catch (err) {
    lane.error ??= err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return event.Records.length;
  }
}

/**
 * One batch through one lane: the event and the context are built before the
 * clock starts; wall time and this process's CPU are taken around the call.
 * Also what each worker process of the `--memory` sweep runs (`memoryMb` its
 * size, for the context's `memoryLimitInMB`).
 */
export async function runBatch(
  lane: Lane,
  batch: readonly Delivery[],
  slice: number,
  serverCpu: (() => number) | undefined,
  memoryMb?: number,
): Promise<BatchSample> {
  const event = toEvent(batch);
  const ctx = context(memoryMb);
  lane.counted.counter.take();
  const serverBefore = serverCpu?.() ?? Number.NaN;
  const cpu = process.cpuUsage();
  lane.effects.start();
  lane.logged.start();
  const started = performance.now();
  const failures = await call(lane, event, ctx);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const serverCpuMs = (serverCpu?.() ?? Number.NaN) - serverBefore;
  const duplicates = batch.filter((d) => d.duplicate).length;
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    serverCpuMs,
    tally: lane.counted.counter.take(),
    records: batch.length,
    fresh: batch.length - duplicates,
    duplicates,
    failures,
    firstEffectMs: lane.effects.firstMs,
    slice,
    ...(lane.logged.requests === undefined ? {} : { requests: lane.logged.requests }),
  };
}

/** The order the lanes run batch `index` in: rotated by one each batch. */
export function rotation<T>(items: readonly T[], index: number): T[] {
  const start = items.length === 0 ? 0 : index % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

/** A progress line at most this often (and one at the end). */
const PROGRESS_EVERY_MS = 10_000;

/** Runs every batch through every lane, interleaved. */
export async function runInterleaved(
  lanes: readonly Lane[],
  batches: ReadonlyArray<readonly Delivery[]>,
  options: RunOptions,
): Promise<void> {
  const started = performance.now();
  let reported = started;
  for (const [index, batch] of batches.entries()) {
    const slice = Math.min(options.slices - 1, Math.floor((index * options.slices) / batches.length));
    for (const lane of rotation(lanes, index)) {
      const sample = await runBatch(lane, batch, slice, options.serverCpu);
      if (options.record) lane.samples.push(sample);
    }
    const now = performance.now();
    if (now - reported >= PROGRESS_EVERY_MS || index + 1 === batches.length) {
      reported = now;
      options.progress(`${options.label}: batch ${index + 1}/${batches.length}, ${((now - started) / 1000).toFixed(0)} s`);
    }
  }
}
