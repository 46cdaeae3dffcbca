/**
 * The Lambda-shaped runs from start to end (`--memory` and / or `--lmi`).
 * Checks that the machine can limit a process's CPU (else a
 * CpuLimitUnavailableError, exit code 2), starts DynamoDB Local (outside
 * every CPU group), checks the quota, measures the cold start per size, runs
 * the memory sweep and the Lambda Managed Instances configurations, and takes
 * every process and group away again, also when the run fails or is
 * interrupted.
 */
import { startDynamoDBLocal } from '../../infra/dynamodb-local.js';
import type { BenchArgs } from '../args.js';
import { awsModel } from '../aws-model.js';
import { measureColdStart } from '../cold-start.js';
import { pinCores } from '../cores.js';
import { commandLine, machine, versions } from '../environment.js';
import { BENCH_CPU_SHARES } from '../priority.js';
import type { ColdStartFigures, LambdaReport, QuotaCheck } from '../results.js';
import { processCpuReader } from '../server-cpu.js';
import { selectVariants } from '../variants.js';
import { benchWorkloads, workloadSummary } from '../workload.js';
import { CpuGroups, CpuLimitUnavailableError, cpuLimitProblem, removeStaleRuns } from '../cgroup.js';
import { bundleLmi, LMI_SCHEDULE, runLmi } from './lmi.js';
import { checkQuota, quotaHolds, quotaLine } from './quota-check.js';
import { lambdaProblems } from './report.js';
import { runSweep, SWEEP_SCHEDULE } from './sweep.js';
import { checkLambdaTargets } from './targets.js';
import { bundleWorker, type Stoppable } from './workers.js';

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

/**
 * The machine's cgroup v1 cpu hierarchy, or a CpuLimitUnavailableError saying why there is none. With `priority`,
 * the run's groups weigh {@link BENCH_CPU_SHARES} together against the machine's other processes (priority.ts).
 */
export function openCpuGroups(progress: (line: string) => void, priority: boolean): CpuGroups {
  const where = cpuLimitProblem();
  if ('problem' in where) throw new CpuLimitUnavailableError(where.problem);
  const stale = removeStaleRuns(where.root, isAlive);
  if (stale.length > 0) progress(`removed CPU groups left by an earlier run: ${stale.join(', ')}`);
  return new CpuGroups(where.root, priority ? { shares: BENCH_CPU_SHARES } : {});
}

/** Kills the children and removes the groups on SIGINT / SIGTERM; returns the function that takes the handlers off again. */
function cleanUpOnSignals(groups: CpuGroups, children: Set<Stoppable>, onSignal: () => Promise<void>): () => void {
  const handler = (signal: NodeJS.Signals) => {
    process.stderr.write(`[bench] ${signal}: stopping the workers and removing the CPU groups\n`);
    for (const c of children) c.kill();
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
export async function checkQuotas(sizes: readonly number[], priority: boolean, progress: (line: string) => void): Promise<QuotaCheck[]> {
  const groups = openCpuGroups(progress, priority);
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

export async function lambdaBench(
  args: BenchArgs,
  argv: readonly string[],
  root: string,
  progress: (line: string) => void,
): Promise<LambdaReport> {
  const started = Date.now();
  const host = machine();
  const groups = openCpuGroups(progress, args.priority);
  const children = new Set<Stoppable>();
  const borrowed = process.env['DYNAMODB_ENDPOINT'] || undefined;
  let stopLocal: () => Promise<void> = async () => {};
  const release = cleanUpOnSignals(groups, children, () => stopLocal());
  try {
    progress(borrowed === undefined ? 'starting DynamoDB Local' : `using DYNAMODB_ENDPOINT=${borrowed}`);
    const local = await startDynamoDBLocal({ jvm: 'stock', readyTimeoutMs: 120_000 });
    stopLocal = () => local.stop();
    try {
      const pinning = args.aws ? pinCores(local.pid) : undefined;
      if (pinning !== undefined) progress(pinning.summary);
      const check = await checkQuota(groups, args.memory[0] ?? awsModel.lambda.fullVcpuMemoryMb, STARTUP_CHECK_MS);
      progress(quotaLine(check));
      if (!quotaHolds(check)) progress('!! the CPU quota does not hold on this machine as expected: read the figures with care');
      const coldStart: ColdStartFigures | undefined =
        args.coldStart && args.memory.length > 0
          ? await measureColdStart({
              root,
              samples: args.importSamples,
              progress,
              atSizes: { endpoint: local.endpoint, sizes: args.memory, groups },
            })
          : undefined;
      const { measured, warmup } = benchWorkloads(args);
      const selected = selectVariants(args.only);
      const client = { latencyMs: args.latencyMs, units: args.units };
      const common = { endpoint: local.endpoint, selected, measured, warmup, seed: args.seed, client, aws: args.aws, groups, progress };
      let sizes: LambdaReport['sizes'] = [];
      if (args.memory.length > 0) {
        progress('bundling the worker with esbuild');
        const workerBundle = await bundleWorker(root);
        sizes = await runSweep({
          ...common,
          sizes: args.memory,
          slices: SLICES,
          workerBundle,
          serverCpu: processCpuReader(local.pid),
          started: children,
        });
      }
      let lmi: LambdaReport['lmi'] = [];
      if (args.lmi.length > 0) {
        progress('bundling the execution environment with esbuild');
        const files = await bundleLmi(root);
        lmi = await runLmi({
          ...common,
          vcpus: args.lmi,
          inFlight: args.inFlight,
          batchSize: args.batch,
          maxSlices: SLICES,
          files,
          started: children,
        });
      }
      host.loadAfter = machine().loadBefore;
      const durationS = (Date.now() - started) / 1000;
      progress(`done in ${durationS.toFixed(0)} s`);
      return {
        kind: 'lambda',
        date: new Date().toISOString(),
        durationS,
        command: commandLine(argv, borrowed),
        machine: host,
        versions: versions(root, borrowed),
        workload: workloadSummary(measured, warmup, args, SLICES),
        schedule: [...(sizes.length > 0 ? [SWEEP_SCHEDULE] : []), ...(lmi.length > 0 ? [LMI_SCHEDULE] : [])].join('; then '),
        cgroupRoot: groups.root,
        quotaChecks: [check],
        sizes,
        lmi,
        coldStart,
        targets: checkLambdaTargets(sizes, lmi, coldStart),
        problems: lambdaProblems(sizes, lmi),
        ...(pinning === undefined ? {} : { aws: { model: awsModel, pinning: pinning.summary } }),
      };
    } finally {
      for (const c of children) c.kill();
      await local.stop();
    }
  } finally {
    release();
    const left = groups.removeAll();
    if (left.length > 0) progress(`could not remove ${left.join(', ')}`);
  }
}
