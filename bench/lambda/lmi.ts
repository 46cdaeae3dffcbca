/**
 * `--lmi 1,2 --in-flight 8,32,64`: Lambda Managed Instances. There, one
 * execution environment runs many invocations of one handler at once on the
 * vCPUs it is given, and the bill is for the instances. The Node.js runtime
 * runs them in worker threads, one per vCPU, each with its own init, and
 * `async` invocations side by side in each thread (AWS's "Node.js runtime for
 * Lambda Managed Instances"). So each variant gets an environment of its own:
 * a process in a CPU group of `vcpus` whole vCPUs (quota `vcpus` × the
 * period), a worker thread per vCPU, `AWS_LAMBDA_MAX_CONCURRENCY` set to the
 * number in flight, `AWS_LAMBDA_FUNCTION_MEMORY_SIZE` and each invocation's
 * `memoryLimitInMB` the function's memory (vCPUs × the model's GiB per vCPU).
 *
 * Schedule: the vCPU counts, then the numbers in flight, one after another;
 * in each configuration every variant gets fresh tables, a fresh environment
 * and its own warm-up, then the measured batches in slices, each slice run by
 * every environment in turn (the first rotating), one environment at a time:
 * each can use its whole quota. The effects are read back after each
 * configuration.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { awsModel } from '../aws-model.js';
import { bundleScript } from '../bundle.js';
import { createVariantTables, scanAll, seedPendingOrders, type ClientOptions } from '../dynamo.js';
import { tallyEffects } from '../effects.js';
import { variantSeed } from '../lanes.js';
import { rotation } from '../measure.js';
import type { LmiConfigResult } from '../results.js';
import type { Variant } from '../variants.js';
import type { Delivery, Workload } from '../workload.js';
import type { CpuGroup, CpuGroups } from '../cgroup.js';
import { type LmiLaneOutcome, type LmiSliceSample, lmiResults, lmiSlices } from './lmi-figures.js';
import { laneOutcome } from './figures.js';
import type { FromEnvironment, LmiInit, LmiSliceResult, ToEnvironment } from './lmi-protocol.js';
import { duration } from './progress.js';
import { forkLimited, lambdaEnv, lambdaNodeFlags } from '../lambda-runtime.js';
import { IpcChild, type Stoppable } from './workers.js';

export const LMI_SCHEDULE =
  'Lambda Managed Instances: the vCPU counts, then the numbers in flight, one after another, each with fresh tables, fresh environments and their own warm-up; ' +
  'the measured batches in slices, each slice run by every environment in turn (the first rotating), one environment at a time';

/** The function's memory at `vcpus`: vCPUs × the model's GiB per vCPU, MB. */
export function lmiMemoryMb(vcpus: number): number {
  return Math.round(vcpus * awsModel.lmi.memoryGiBPerVcpu * 1024);
}

/** The environment's process and its thread, bundled with the AWS SDK external as Lambda's runtime provides it. */
export async function bundleLmi(root: string): Promise<{ environment: string; thread: string }> {
  return {
    environment: await bundleScript(root, 'lambda/lmi-environment.ts', 'lmi-environment', { sdkExternal: true }),
    thread: await bundleScript(root, 'lambda/lmi-thread.ts', 'lmi-thread', { sdkExternal: true }),
  };
}

/** One variant's execution environment. */
export class LmiEnvironment implements Stoppable {
  readonly variant: Variant;
  readonly group: CpuGroup;
  readonly #ipc: IpcChild<ToEnvironment, FromEnvironment>;

  private constructor(variant: Variant, group: CpuGroup, ipc: IpcChild<ToEnvironment, FromEnvironment>) {
    this.variant = variant;
    this.group = group;
    this.#ipc = ipc;
  }

  static async start(
    file: string,
    variant: Variant,
    group: CpuGroup,
    init: Omit<LmiInit, 'type'>,
    inFlight: number,
  ): Promise<LmiEnvironment> {
    const env = lambdaEnv(init.memoryMb, { AWS_LAMBDA_MAX_CONCURRENCY: String(inFlight) });
    const child = forkLimited(file, group, { env, nodeFlags: lambdaNodeFlags(init.memoryMb) });
    const label = `the environment of ${variant.id} (${init.threads} vCPU, ${inFlight} in flight)`;
    const environment = new LmiEnvironment(variant, group, new IpcChild(label, child));
    try {
      const answer = await environment.#ipc.ask({ type: 'init', ...init });
      if (answer.type !== 'ready') throw new Error(`${label}: ${answer.type === 'failed' ? answer.error : answer.type}`);
      return environment;
    } catch (err) {
      environment.kill();
      throw err;
    }
  }

  async slice(batches: ReadonlyArray<readonly Delivery[]>, inFlight: number, batchSize: number): Promise<LmiSliceResult> {
    const answer = await this.#ipc.ask({ type: 'slice', batches, inFlight, batchSize });
    if (answer.type === 'slice') return answer.result;
    throw new Error(`${this.#ipc.label}: ${answer.type === 'failed' ? answer.error : answer.type}`);
  }

  stop(): Promise<void> {
    return this.#ipc.stop({ type: 'stop' });
  }

  kill(): void {
    this.#ipc.kill();
  }
}

export interface LmiInput {
  readonly endpoint: string;
  readonly vcpus: readonly number[];
  readonly inFlight: readonly number[];
  readonly selected: readonly Variant[];
  readonly measured: Workload;
  readonly warmup: Workload;
  readonly seed: number;
  readonly batchSize: number;
  readonly client: Omit<ClientOptions, 'aws'>;
  readonly aws: boolean;
  readonly maxSlices: number;
  readonly files: { readonly environment: string; readonly thread: string };
  readonly groups: CpuGroups;
  readonly progress: (line: string) => void;
  /** Every environment started, so an interrupted run can kill them before removing the groups. */
  readonly started: Set<Stoppable>;
}

/** A variant's environment in one configuration while it runs. */
interface Lane {
  readonly variant: Variant;
  readonly business: string;
  readonly environment: LmiEnvironment;
  readonly samples: LmiSliceSample[];
  error: string | undefined;
}

/** Every configuration, vCPU counts then numbers in flight. */
export async function runLmi(input: LmiInput): Promise<LmiConfigResult[]> {
  const results: LmiConfigResult[] = [];
  for (const vcpus of input.vcpus) for (const inFlight of input.inFlight) results.push(await runConfig(input, vcpus, inFlight));
  return results;
}

async function startLanes(input: LmiInput, vcpus: number, inFlight: number): Promise<Lane[]> {
  const run = randomUUID().slice(0, 8);
  const memoryMb = lmiMemoryMb(vcpus);
  const lanes: Lane[] = [];
  for (const variant of input.selected) {
    const tables = await createVariantTables(input.endpoint, `bench-${run}-lmi${vcpus}x${inFlight}-${variant.id}`, {
      idempotency: variant.idempotencyTable,
      business: variant.business,
    });
    if (variant.business === 'orders')
      for (const w of [input.measured, input.warmup]) await seedPendingOrders(input.endpoint, tables.business, w.events);
    const group = input.groups.create(`lmi-${vcpus}x${inFlight}-${variant.id}`, memoryMb, { vcpus });
    const environment = await LmiEnvironment.start(
      input.files.environment,
      variant,
      group,
      {
        variantId: variant.id,
        endpoint: input.endpoint,
        tables,
        client: { ...input.client, billedUnits: true, ...(input.aws ? { aws: { seed: variantSeed(input.seed, variant.id) } } : {}) },
        cacheEntries: input.measured.events.length + input.warmup.events.length,
        memoryMb,
        threads: vcpus,
        threadFile: input.files.thread,
      },
      inFlight,
    );
    input.started.add(environment);
    lanes.push({ variant, business: tables.business, environment, samples: [], error: undefined });
  }
  return lanes;
}

/** One slice through one environment, with the ms its quota held it back meanwhile. */
async function runSlice(input: LmiInput, lane: Lane, batches: ReadonlyArray<readonly Delivery[]>, inFlight: number, slice: number) {
  const before = lane.environment.group.stat().throttledMs;
  try {
    const result = await lane.environment.slice(batches, inFlight, input.batchSize);
    // Records given up: the handler's error says why (a record it failed only for a while came again and is not one).
    if (result.unacknowledged > 0 && result.error !== undefined) lane.error ??= `the handler: ${result.error}`;
    lane.samples.push({ ...result, slice, throttledMs: lane.environment.group.stat().throttledMs - before });
  } catch (err) {
    lane.error ??= err instanceof Error ? err.message : String(err);
    input.progress(`!! ${lane.variant.id} failed: ${lane.error}`);
  }
}

async function runConfig(input: LmiInput, vcpus: number, inFlight: number): Promise<LmiConfigResult> {
  const started = performance.now();
  const label = `LMI ${vcpus} vCPU, ${inFlight} in flight`;
  input.progress(`${label}: tables and ${input.selected.length} environments (${vcpus} worker thread${vcpus === 1 ? '' : 's'} each)`);
  const lanes = await startLanes(input, vcpus, inFlight);
  const slices = lmiSlices(input.measured.batches.length, inFlight, input.maxSlices);
  const per = Math.ceil(input.measured.batches.length / slices);
  try {
    for (const lane of lanes) {
      await lane.environment.slice(input.warmup.batches, inFlight, input.batchSize).catch((err: unknown) => {
        lane.error ??= `warm-up: ${err instanceof Error ? err.message : String(err)}`;
      });
    }
    for (let s = 0; s < slices; s += 1) {
      const batches = input.measured.batches.slice(s * per, (s + 1) * per);
      for (const lane of rotation(lanes, s)) if (lane.error === undefined) await runSlice(input, lane, batches, inFlight, s);
      input.progress(`${label}: slice ${s + 1}/${slices}, ${duration(performance.now() - started)}`);
    }
  } finally {
    for (const lane of lanes) {
      await lane.environment.stop();
      input.started.delete(lane.environment);
    }
  }
  input.progress(`${label}: reading the effects back`);
  const outcomes: LmiLaneOutcome[] = [];
  for (const lane of lanes) {
    const problems = input.groups.remove(lane.environment.group);
    if (problems.length > 0) input.progress(`could not remove ${problems.join(', ')}`);
    const effects = tallyEffects(lane.variant.business, await scanAll(input.endpoint, lane.business), input.measured);
    outcomes.push(laneOutcome(lane.variant, lane.samples, effects, lane.error));
  }
  const group = lanes[0]?.environment.group;
  return {
    vcpus,
    inFlight,
    memoryMb: lmiMemoryMb(vcpus),
    quotaUs: group?.quotaUs ?? Number.NaN,
    periodUs: group?.periodUs ?? Number.NaN,
    threads: vcpus,
    coresAvailable: availableParallelism(),
    slices,
    durationS: (performance.now() - started) / 1000,
    variants: lmiResults(outcomes, vcpus),
  };
}
