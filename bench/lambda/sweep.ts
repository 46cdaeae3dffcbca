/**
 * `--memory 128,256,...`: the Lambda-shaped bench. The sizes run one after
 * another, ascending; at each size every variant gets fresh tables and a
 * fresh worker process in its own CPU group (memory / 1,769 of a vCPU), its
 * own warm-up, then the measured batches, interleaved as in the one-process
 * bench: each round hands one batch to each variant's process in turn, the
 * first variant rotating. The parent only hands batches over and reads
 * DynamoDB Local's CPU around each; wall time and CPU are measured in the
 * worker. After each size the effects are read back from the tables.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createVariantTables, scanAll, seedPendingOrders, type ClientOptions } from '../dynamo.js';
import { tallyEffects } from '../effects.js';
import { variantSeed } from '../lanes.js';
import { rotation } from '../measure.js';
import type { SizeResult } from '../results.js';
import type { SampleLike } from '../stats.js';
import type { Variant } from '../variants.js';
import type { Delivery, Workload } from '../workload.js';
import { type CpuGroups, cpuShare } from '../cgroup.js';
import { laneOutcome, type SizeLaneOutcome, sizeResults } from './figures.js';
import { duration, etaMs, type RoundsSeen } from './progress.js';
import { lambdaNodeFlags } from '../lambda-runtime.js';
import { HandlerWorker, type Stoppable } from './workers.js';

export const SWEEP_SCHEDULE =
  'sizes one after another (ascending), each with fresh tables, fresh worker processes and its own warm-up; ' +
  'at each size the variants interleaved batch by batch (each round one batch to each worker in turn, the first rotating)';

export interface SweepInput {
  readonly endpoint: string;
  readonly sizes: readonly number[];
  readonly selected: readonly Variant[];
  readonly measured: Workload;
  readonly warmup: Workload;
  /** The run's seed (each variant's latency floor draws from its own seed made from it). */
  readonly seed: number;
  readonly client: Omit<ClientOptions, 'aws'>;
  readonly aws: boolean;
  readonly slices: number;
  readonly workerBundle: string;
  readonly groups: CpuGroups;
  /** Reads DynamoDB Local's CPU so far (ms), when known. */
  readonly serverCpu: (() => number) | undefined;
  readonly progress: (line: string) => void;
  /** Every worker started, so an interrupted run can kill them before removing the groups. */
  readonly started: Set<Stoppable>;
}

/** A variant at one size while it runs. */
interface SizeLane {
  readonly variant: Variant;
  readonly business: string;
  readonly worker: HandlerWorker;
  readonly samples: SampleLike[];
  error: string | undefined;
  /** The worker is gone (it failed): its lane gets no more batches. */
  dead: boolean;
  batchesRun: number;
}

/** A progress line at most this often (and one at the end of each block). */
const PROGRESS_EVERY_MS = 15_000;

/** Runs the whole sweep; the sizes' results in order. */
export async function runSweep(input: SweepInput): Promise<SizeResult[]> {
  const results: SizeResult[] = [];
  const started = performance.now();
  let lastSeen: RoundsSeen | undefined;
  for (const [sizeIndex, memoryMb] of input.sizes.entries()) {
    const { result, seen } = await runSize(input, memoryMb, sizeIndex, started, lastSeen);
    results.push(result);
    lastSeen = seen;
  }
  return results;
}

async function startLanes(input: SweepInput, memoryMb: number, run: string): Promise<SizeLane[]> {
  const cacheEntries = input.measured.events.length + input.warmup.events.length;
  const prepared = [];
  for (const variant of input.selected) {
    const tables = await createVariantTables(input.endpoint, `bench-${run}-${memoryMb}-${variant.id}`, {
      idempotency: variant.idempotencyTable,
      business: variant.business,
    });
    if (variant.business === 'orders')
      for (const w of [input.measured, input.warmup]) await seedPendingOrders(input.endpoint, tables.business, w.events);
    prepared.push({ variant, tables, group: input.groups.create(`${memoryMb}-${variant.id}`, memoryMb) });
  }
  // The workers start side by side: each has its own quota, and at small sizes one start takes seconds.
  return Promise.all(
    prepared.map(async ({ variant, tables, group }): Promise<SizeLane> => {
      const client: ClientOptions = {
        ...input.client,
        billedUnits: true,
        ...(input.aws ? { aws: { seed: variantSeed(input.seed, variant.id) } } : {}),
      };
      const worker = await HandlerWorker.start(input.workerBundle, variant, group, {
        variantId: variant.id,
        endpoint: input.endpoint,
        tables,
        client,
        cacheEntries,
        memoryMb,
      });
      input.started.add(worker);
      return { variant, business: tables.business, worker, samples: [], error: undefined, dead: false, batchesRun: 0 };
    }),
  );
}

async function runSize(
  input: SweepInput,
  memoryMb: number,
  sizeIndex: number,
  sweepStarted: number,
  lastSeen: RoundsSeen | undefined,
): Promise<{ result: SizeResult; seen: RoundsSeen }> {
  const sizeStarted = performance.now();
  const label = `${memoryMb} MB (${sizeIndex + 1}/${input.sizes.length})`;
  input.progress(
    `${label}: tables and ${input.selected.length} worker processes, ${(cpuShare(memoryMb) * 100).toFixed(1)} % of a vCPU each`,
  );
  const run = randomUUID().slice(0, 8);
  const lanes = await startLanes(input, memoryMb, run);
  const rounds = [
    ...input.warmup.batches.map((batch) => ({ batch, record: false, slice: 0 })),
    ...input.measured.batches.map((batch, i) => ({
      batch,
      record: true,
      slice: Math.min(input.slices - 1, Math.floor((i * input.slices) / input.measured.batches.length)),
    })),
  ];
  let seen: RoundsSeen = { memoryMb, rounds: 0, wallMs: 0, cpuMs: 0 };
  let reported = performance.now();
  try {
    for (const [index, round] of rounds.entries()) {
      const roundStarted = performance.now();
      let roundCpu = 0;
      for (const lane of rotation(lanes, index)) {
        if (lane.dead) continue;
        roundCpu += await runOne(input, lane, round.batch, round.slice, round.record);
      }
      seen = { memoryMb, rounds: seen.rounds + 1, wallMs: seen.wallMs + performance.now() - roundStarted, cpuMs: seen.cpuMs + roundCpu };
      const now = performance.now();
      if (now - reported >= PROGRESS_EVERY_MS || index + 1 === rounds.length || index + 1 === input.warmup.batches.length) {
        reported = now;
        const phase =
          index < input.warmup.batches.length
            ? `warm-up round ${index + 1}/${input.warmup.batches.length}`
            : `measured round ${index + 1 - input.warmup.batches.length}/${input.measured.batches.length}`;
        const left = etaMs({
          sizes: input.sizes,
          sizeIndex,
          roundsPerSize: rounds.length,
          roundsDone: index + 1,
          seen: seen.rounds >= 3 || lastSeen === undefined ? seen : lastSeen,
        });
        input.progress(
          `${label}: ${phase}, ${duration(now - sizeStarted)} at this size; ${duration(now - sweepStarted)} in, about ${duration(left)} left`,
        );
      }
    }
  } finally {
    for (const lane of lanes) {
      await lane.worker.stop();
      input.started.delete(lane.worker);
    }
  }
  input.progress(`${label}: reading the effects back`);
  const outcomes: SizeLaneOutcome[] = [];
  for (const lane of lanes) {
    const throttledMs = lane.worker.group.stat().throttledMs;
    const problems = input.groups.remove(lane.worker.group);
    if (problems.length > 0) input.progress(`could not remove ${problems.join(', ')}`);
    const effects = tallyEffects(lane.variant.business, await scanAll(input.endpoint, lane.business), input.measured);
    outcomes.push({ ...laneOutcome(lane.variant, lane.samples, effects, lane.error), throttledMs, batchesRun: lane.batchesRun });
  }
  const group = lanes[0]?.worker.group;
  return {
    result: {
      memoryMb,
      cpuShare: cpuShare(memoryMb),
      quotaUs: group?.quotaUs ?? Number.NaN,
      periodUs: group?.periodUs ?? Number.NaN,
      nodeFlags: lambdaNodeFlags(memoryMb),
      durationS: (performance.now() - sizeStarted) / 1000,
      variants: sizeResults(outcomes, memoryMb),
    },
    seen,
  };
}

/** One batch through one lane's worker; returns the CPU it reported (0 when it failed). */
async function runOne(input: SweepInput, lane: SizeLane, batch: readonly Delivery[], slice: number, record: boolean): Promise<number> {
  const serverBefore = input.serverCpu?.() ?? Number.NaN;
  try {
    const { sample, error } = await lane.worker.batch(batch, slice);
    const serverCpuMs = (input.serverCpu?.() ?? Number.NaN) - serverBefore;
    lane.batchesRun += 1;
    lane.error ??= error;
    if (record) lane.samples.push({ ...sample, serverCpuMs });
    return sample.cpuMs;
  } catch (err) {
    lane.error ??= err instanceof Error ? err.message : String(err);
    lane.dead = true;
    input.progress(`!! ${lane.variant.id} at ${lane.worker.group.memoryMb} MB failed: ${lane.error}`);
    return 0;
  }
}
