/**
 * `npm run bench`: one seeded SQS workload through the business write alone,
 * Powertools idempotency + batch, and ours (claim, transaction, state
 * machine). In one process, interleaved on DynamoDB Local, with the
 * cold-start weight of both libraries and a lease-takeover comparison; or,
 * with `--memory` / `--lmi`, Lambda-shaped (bench/lambda/): each handler in a
 * CPU-limited process of its own. Writes the Markdown report. Timing lives
 * here and never in tests. Progress goes to stderr so stdout stays the table
 * (or the JSON).
 */
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDynamoDBLocal, type DynamoDBLocalHandle } from '../../infra/dynamodb-local.js';
import { BenchUsageError, parseBenchArgs, usage, type BenchArgs } from '../args.js';
import { awsModel } from '../aws-model.js';
import { checkAwsTargets } from '../aws-targets.js';
import { CpuLimitUnavailableError } from '../cgroup.js';
import { measureColdStart } from '../cold-start.js';
import { pinCores, type Pinning } from '../cores.js';
import { commandLine, machine, versions } from '../environment.js';
import { runFencing, type FencingResult } from '../fencing.js';
import { checkQuotas, lambdaBench } from '../lambda/bench.js';
import { quotaHolds } from '../lambda/quota-check.js';
import { laneResults, prepareLanes } from '../lanes.js';
import { runInterleaved } from '../measure.js';
import { raisePriority } from '../priority.js';
import type { BenchReport, ColdStartFigures, ProcessReport, VariantResult } from '../results.js';
import { processCpuReader } from '../server-cpu.js';
import { checkTargets } from '../targets.js';
import { selectVariants } from '../variants.js';
import { benchWorkloads, type Workload, workloadSummary } from '../workload.js';
import { formatReport, writeReport } from './output.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Equal parts of the run whose records/s are measured separately; the report gives their median. */
const SLICES = 5;

function progress(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

async function runVariants(local: DynamoDBLocalHandle, args: BenchArgs, measured: Workload, warmup: Workload): Promise<VariantResult[]> {
  const { endpoint } = local;
  const selected = selectVariants(args.only);
  const clientOptions = { latencyMs: args.latencyMs, units: args.units, ...(args.aws ? { aws: { seed: args.seed } } : {}) };
  const lanes = await prepareLanes(endpoint, selected, [measured, warmup], clientOptions, progress);
  const serverCpu = processCpuReader(local.pid);
  try {
    await runInterleaved(lanes, warmup.batches, { record: false, slices: SLICES, label: 'warm-up', progress, serverCpu });
    await runInterleaved(lanes, measured.batches, { record: true, slices: SLICES, label: `${lanes.length} variants`, progress, serverCpu });
    progress('reading the effects back from the tables');
    return await laneResults(endpoint, lanes, measured, args.units, args.aws);
  } finally {
    for (const lane of lanes) lane.counted.client.destroy();
  }
}

async function processBench(args: BenchArgs, argv: readonly string[]): Promise<ProcessReport> {
  const started = Date.now();
  const host = machine();
  // Before DynamoDB Local starts: the child processes get quiet cores.
  const coldStart: ColdStartFigures | undefined = args.coldStart
    ? await measureColdStart({ root: ROOT, samples: args.importSamples, progress })
    : undefined;
  const borrowed = process.env['DYNAMODB_ENDPOINT'] || undefined;
  progress(borrowed === undefined ? 'starting DynamoDB Local' : `using DYNAMODB_ENDPOINT=${borrowed}`);
  // A loaded 2-core machine can take more than the default 30 s to start the JVM.
  const local = await startDynamoDBLocal({ jvm: 'stock', readyTimeoutMs: 120_000 });
  // After the cold-start children: they must not inherit the bench's one core.
  const pinning: Pinning | undefined = args.aws ? pinCores(local.pid) : undefined;
  if (pinning !== undefined) progress(pinning.summary);
  try {
    const { measured, warmup } = benchWorkloads(args);
    const variants = await runVariants(local, args, measured, warmup);
    const fencing: FencingResult[] = args.correctness ? await runFencing(local.endpoint, progress) : [];
    host.loadAfter = machine().loadBefore;
    const durationS = (Date.now() - started) / 1000;
    progress(`done in ${durationS.toFixed(0)} s`);
    return {
      kind: 'process',
      date: new Date().toISOString(),
      durationS,
      command: commandLine(argv, borrowed),
      machine: host,
      versions: versions(ROOT, borrowed),
      workload: workloadSummary(measured, warmup, args, SLICES),
      variants,
      targets: args.aws
        ? checkAwsTargets(variants, { duplicateRate: args.duplicateRate })
        : checkTargets(variants, coldStart, { duplicateRate: args.duplicateRate }),
      coldStart,
      fencing,
      ...(pinning === undefined ? {} : { aws: { model: awsModel, pinning: pinning.summary } }),
    };
  } finally {
    await local.stop();
  }
}

/** Lambda-shaped (each handler in a CPU group of its own) with `--memory` or `--lmi`. */
const lambdaShaped = (args: BenchArgs): boolean => args.memory.length > 0 || args.lmi.length > 0;

/** The run the arguments ask for: Lambda-shaped with `--memory` or `--lmi`, else in one process. */
function runBench(args: BenchArgs, argv: readonly string[]): Promise<BenchReport> {
  return lambdaShaped(args) ? lambdaBench(args, argv, ROOT, progress) : processBench(args, argv);
}

/** `--check-quota`: every size's quota checked, nothing else; exit code 1 when one is off. */
async function checkQuotasOnly(args: BenchArgs): Promise<void> {
  const checks = await checkQuotas(args.memory, args.priority, progress);
  if (!checks.every(quotaHolds)) process.exitCode = 1;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let args: BenchArgs;
  try {
    args = parseBenchArgs(argv);
  } catch (err) {
    if (!(err instanceof BenchUsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  if (args.help) {
    process.stdout.write(usage);
    return;
  }
  // Before anything is started: DynamoDB Local, the cold-start processes and the workers inherit it.
  const priority = args.priority ? raisePriority({ cpuGroups: lambdaShaped(args) }) : undefined;
  if (priority !== undefined) progress(priority.words);
  let report: BenchReport;
  try {
    if (args.checkQuota) return await checkQuotasOnly(args);
    report = { ...(await runBench(args, argv)), ...(priority === undefined ? {} : { priority: priority.words }) };
  } catch (err) {
    if (!(err instanceof CpuLimitUnavailableError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exitCode = 2;
    return;
  }
  process.stdout.write(formatReport(report, args.json));
  if (args.docs !== undefined) {
    const written = await writeReport(resolve(ROOT, args.docs), report);
    progress(`wrote ${[join(args.docs), ...written.map((f) => relative(ROOT, f))].join(', ')}`);
  }
  // A variant that was not exactly once makes the exit code 1 (the Lambda-shaped runs read every effect back).
  const problems = report.kind === 'lambda' ? report.problems : [];
  for (const p of problems) process.stderr.write(`!! NOT EXACTLY ONCE: ${p}\n`);
  if (problems.length > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
