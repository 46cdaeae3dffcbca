/**
 * `npm run bench -- --memory ...`: the sweep from start to end. Checks that
 * the machine can limit a process's CPU (else a CpuLimitUnavailableError,
 * exit code 2), starts DynamoDB Local (outside every CPU group), checks the
 * quota, measures the cold start per size, runs the sweep, and takes every
 * worker and group away again, also when the run fails or is interrupted.
 */
import { startDynamoDBLocal } from '../../infra/dynamodb-local.js';
import type { BenchArgs } from '../args.js';
import { awsModel } from '../aws-model.js';
import { pinCores } from '../cores.js';
import { commandLine, machine, versions } from '../environment.js';
import { processCpuReader } from '../server-cpu.js';
import { selectVariants } from '../variants.js';
import { benchWorkloads, workloadSummary } from '../workload.js';
import { CpuGroups, CpuLimitUnavailableError, cpuLimitProblem, removeStaleRuns } from './cgroup.js';
import { measureColdStartPerSize } from './cold-start.js';
import { exactlyOnceProblems } from './report.js';
import { checkQuota, quotaHolds, quotaLine } from './quota-check.js';
import type { QuotaCheck, SweepColdStart, SweepReport } from './results.js';
import { runSweep, SWEEP_SCHEDULE } from './sweep.js';
import { checkSweepTargets } from './targets.js';
import { bundleWorker, type HandlerWorker } from './workers.js';

/** Equal parts of the measured batches whose records/s are taken separately (as the one-process bench). */
const SLICES = 5;
/** The start-up check's busy loop (at the smallest size); `--check-quota` runs 2 s at every size. */
const STARTUP_CHECK_MS = 1000;
const FULL_CHECK_MS = 2000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The machine's cgroup v1 cpu hierarchy, or a CpuLimitUnavailableError saying why there is none. */
export function openCpuGroups(progress: (line: string) => void): CpuGroups {
  const where = cpuLimitProblem();
  if ('problem' in where) throw new CpuLimitUnavailableError(where.problem);
  const stale = removeStaleRuns(where.root, isAlive);
  if (stale.length > 0) progress(`removed CPU groups left by an earlier run: ${stale.join(', ')}`);
  return new CpuGroups(where.root);
}

/** Kills the workers and removes the groups on SIGINT / SIGTERM; returns the function that takes the handlers off again. */
function cleanUpOnSignals(groups: CpuGroups, workers: Set<HandlerWorker>, onSignal: () => Promise<void>): () => void {
  const handler = (signal: NodeJS.Signals) => {
    process.stderr.write(`[bench] ${signal}: stopping the workers and removing the CPU groups\n`);
    for (const w of workers) w.kill();
    // Killed processes leave their group a moment later: removal retries below.
    setTimeout(() => {
      const left = groups.removeAll();
      if (left.length > 0) process.stderr.write(`[bench] could not remove ${left.join(', ')}\n`);
      void onSignal().finally(() => process.exit(130));
    }, 200);
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** `--check-quota`: a 2 s busy loop at every size; true when every size got its share. */
export async function checkQuotas(sizes: readonly number[], progress: (line: string) => void): Promise<QuotaCheck[]> {
  const groups = openCpuGroups(progress);
  try {
    const checks: QuotaCheck[] = [];
    for (const size of sizes) {
      const check = await checkQuota(groups, size, FULL_CHECK_MS);
      progress(quotaLine(check));
      checks.push(check);
    }
    return checks;
  } finally {
    groups.removeAll();
  }
}

export async function sweepBench(
  args: BenchArgs,
  argv: readonly string[],
  root: string,
  progress: (line: string) => void,
): Promise<SweepReport> {
  const started = Date.now();
  const host = machine();
  const groups = openCpuGroups(progress);
  const workers = new Set<HandlerWorker>();
  const borrowed = process.env['DYNAMODB_ENDPOINT'] || undefined;
  let stopLocal: () => Promise<void> = async () => {};
  const release = cleanUpOnSignals(groups, workers, () => stopLocal());
  try {
    progress(borrowed === undefined ? 'starting DynamoDB Local' : `using DYNAMODB_ENDPOINT=${borrowed}`);
    const local = await startDynamoDBLocal({ jvm: 'stock', readyTimeoutMs: 120_000 });
    stopLocal = () => local.stop();
    try {
      const pinning = args.aws ? pinCores(local.pid) : undefined;
      if (pinning !== undefined) progress(pinning.summary);
      const smallest = args.memory[0] as number;
      const check = await checkQuota(groups, smallest, STARTUP_CHECK_MS);
      progress(quotaLine(check));
      if (!quotaHolds(check)) progress('!! the CPU quota does not hold on this machine as expected: read the figures with care');
      const coldStart: SweepColdStart | undefined = args.coldStart
        ? await measureColdStartPerSize({
            root,
            endpoint: local.endpoint,
            sizes: args.memory,
            samples: args.importSamples,
            groups,
            progress,
          })
        : undefined;
      progress('bundling the worker with esbuild');
      const workerBundle = await bundleWorker(root);
      const { measured, warmup } = benchWorkloads(args);
      const sizes = await runSweep({
        endpoint: local.endpoint,
        sizes: args.memory,
        selected: selectVariants(args.only),
        measured,
        warmup,
        seed: args.seed,
        client: { latencyMs: args.latencyMs, units: args.units },
        aws: args.aws,
        slices: SLICES,
        workerBundle,
        groups,
        serverCpu: processCpuReader(local.pid),
        progress,
        started: workers,
      });
      host.loadAfter = machine().loadBefore;
      const durationS = (Date.now() - started) / 1000;
      progress(`done in ${durationS.toFixed(0)} s`);
      return {
        kind: 'memory-sweep',
        date: new Date().toISOString(),
        durationS,
        command: commandLine(argv, borrowed),
        machine: host,
        versions: versions(root, borrowed),
        workload: workloadSummary(measured, warmup, args, SLICES),
        schedule: SWEEP_SCHEDULE,
        cgroupRoot: groups.root,
        quotaChecks: [check],
        sizes,
        coldStart,
        targets: checkSweepTargets(sizes, coldStart),
        problems: exactlyOnceProblems(sizes),
        ...(pinning === undefined ? {} : { aws: { model: awsModel, pinning: pinning.summary } }),
      };
    } finally {
      for (const w of workers) w.kill();
      await local.stop();
    }
  } finally {
    release();
    const left = groups.removeAll();
    if (left.length > 0) progress(`could not remove ${left.join(', ')}`);
  }
}
