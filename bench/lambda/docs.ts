/**
 * The Lambda-shaped runs' Markdown sections and charts, written beside the
 * Markdown report (docs/benchmarks.md → docs/benchmarks-power.svg, ...):
 *
 * - `power` (`power-dup-R` for another duplicate rate): the memory sweep, its
 *   two charts (the ratios to Powertools per size, the raw duration and cost),
 *   the cold start per size;
 * - `lmi`: Lambda Managed Instances and its chart;
 * - `cost`: $ per million deliveries per use case, at each size and on LMI,
 *   from the same run's figures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { benchDefaults } from '../args.js';
import { lmiUsdPerVcpuHour } from '../aws-model.js';
import { awsModelLines } from '../aws-docs.js';
import { fixed, markdownTable, mb, percent, type Table } from '../format.js';
import { bundleTable, importStepsTable, targetVerdict } from '../report.js';
import type { LambdaReport, TargetCheck } from '../results.js';
import { dupSuffix, writeSection } from '../sections.js';
import { lmiChartSpec, powerChartSpec, ratioChartSpec, renderSvg } from './chart.js';
import { quotaHolds } from './quota-check.js';
import {
  coldStartSizeTable,
  coreWarnings,
  costConfigs,
  costTable,
  lambdaProblems,
  lmiConfigTable,
  lmiLabel,
  lmiVersusTable,
  sizeTable,
  versusTable,
} from './report.js';
import { coldStartTargets, exactlyOnceTarget, lmiTargets, sweepTargets } from './targets.js';

/** A section's key: its family and, for a duplicate rate other than the default, `-dup-R`. */
export function lambdaSectionKey(family: 'power' | 'lmi' | 'cost', report: Pick<LambdaReport, 'workload'>): string {
  return `${family}${dupSuffix(report.workload.duplicateRate, benchDefaults.duplicateRate)}`;
}

/** A chart's file for a Markdown report at `docsPath`: beside it, named after it and the chart's key. */
export function chartPath(docsPath: string, key: string): string {
  return join(dirname(docsPath), `${basename(docsPath, extname(docsPath))}-${key}.svg`);
}

const dupWords = (rate: number) => `${Number((rate * 100).toFixed(2))} % duplicates`;
const table = (t: Table) => markdownTable(t.head, t.rows);
const targetsTable = (targets: readonly TargetCheck[]) =>
  markdownTable(
    ['target', 'measured', 'verdict'],
    targets.map((t) => [t.target, t.measured, targetVerdict(t)]),
  );

/** Command, machine, versions and workload: where the figures come from. */
function provenance(report: LambdaReport): string[] {
  const m = report.machine;
  const v = report.versions;
  const w = report.workload;
  return [
    `Command: \`${report.command}\` — ${report.date}, ${report.durationS.toFixed(0)} s.`,
    '',
    `Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGb} GB, ${m.os}; 1-minute load ${fixed(m.loadBefore, 2)} at the start, ${fixed(m.loadAfter ?? Number.NaN, 2)} at the end` +
      `${report.aws === undefined ? '' : ` (${report.aws.pinning}; other processes on the machine may use both)`}.` +
      `${report.priority === undefined ? '' : ` Priority: ${report.priority}.`}`,
    '',
    `Versions: Node ${v.node}; effectively-once ${v.ours}; Powertools idempotency ${v.powertoolsIdempotency}, batch ${v.powertoolsBatch}; AWS SDK ${v.awsSdk}; @middy/core ${v.middy}; DynamoDB Local ${v.dynamodbLocal}.`,
    '',
    `Workload: ${w.events} business events + ${w.duplicates} duplicate deliveries under new message ids = ${w.deliveries} deliveries in ${w.batches} SQS batches of ${w.batchSize} (seed ${w.seed}) in every size and configuration, ` +
      `${w.warmupBatches} warm-up batches per variant before each.`,
  ];
}

function exactlyOnceLine(report: LambdaReport, where: 'sizes' | 'lmi'): string {
  const problems = where === 'sizes' ? lambdaProblems(report.sizes, []) : lambdaProblems([], report.lmi);
  const span = where === 'sizes' ? 'at every size' : 'in every configuration';
  return problems.length === 0
    ? `Every idempotent variant applied each of the ${report.workload.events} events exactly once ${span} (effects and points read back from the tables; no record failed${where === 'lmi' ? ' for good' : ''}).`
    : `**Not exactly once:** ${problems.join('; ')}.`;
}

function coldStartLines(report: LambdaReport): string[] {
  const c = report.coldStart;
  if (c === undefined || c.sizes.length === 0) return [];
  return [
    '',
    '### Cold start per size',
    '',
    `The README's claim handler (bench/cold-start/ours-handler.ts) and Powertools' equivalent (bench/cold-start/powertools-handler.ts), ${c.build}, esbuild ${c.esbuild}: ` +
      'each imported and called once with a first batch of 10 fresh records (DynamoDB Local, no latency floor) in a fresh process, with the heap flags of the size. ' +
      '**On demand** Lambda runs the init phase on a full, unthrottled vCPU: the process starts in a CPU group of one vCPU and moves into a fresh group of the size between the import and the first batch. ' +
      `**Provisioned concurrency** gets no such burst: the process is in a group of the size from its first instruction. Init = import + first batch; median of ${c.samples} processes per side, size and mode, the sides and modes alternating. Node's boot is not in init.`,
    '',
    ...table(coldStartSizeTable(c)),
    '',
    `The bundles, and the import step by step at full CPU (${c.fullCpu}; median of ${c.samples} fresh processes per side): each SDK module the bundle leaves to the runtime, one after the other, then the bundle.`,
    '',
    ...table(bundleTable(c)),
    '',
    ...table(importStepsTable(c)),
  ];
}

/** The memory sweep's section; `charts` are the ratio chart's and the raw chart's names relative to the Markdown file. */
export function renderPowerSection(report: LambdaReport, charts: { readonly ratios: string; readonly raw: string }): string {
  const key = lambdaSectionKey('power', report);
  const w = report.workload;
  const lines = [
    `<!-- bench:begin ${key} -->`,
    `## Lambda-shaped sweep: each handler at its memory size's share of a vCPU, ${dupWords(w.duplicateRate)}`,
    '',
    ...provenance(report),
    `records/s is the median over ${w.slices} slices, its ratio the median of the slice-by-slice ratios.`,
    '',
    `How: every variant's handler runs in a Node process of its own (bench/lambda/worker.ts, bundled with esbuild) inside a cgroup v1 cpu group whose CFS quota is the size's share of one vCPU ` +
      "(memory / 1,769 MB; one vCPU at 1,769 MB and above), joined before Node starts, with the heap flags Lambda's Node.js runtime gives the size, `AWS_LAMBDA_FUNCTION_MEMORY_SIZE` set and each invocation's `context.memoryLimitInMB` the size " +
      '(what the default claim strategy chooses its requests by, per invocation: the last row of the table against Powertools says which it chose, from its batch log lines). ' +
      `Wall time and CPU are measured inside that process; DynamoDB Local is outside every group. Schedule: ${report.schedule}. ` +
      "Billed ms: each batch's wall time rounded up to 1 ms; $ / M deliveries: Lambda GB-s at the size + requests + DynamoDB on-demand units counted from the requests sent.",
    '',
    ...report.quotaChecks.map(
      (c) =>
        `Quota check: a busy loop in a ${mb(c.memoryMb)} group got ${c.cpuMs.toFixed(0)} ms of CPU in ${c.wallMs.toFixed(0)} ms (${percent(c.measuredShare)} of a vCPU, expected ${percent(c.expectedShare)})${quotaHolds(c) ? '.' : ': **off by more than 25 %**.'}`,
    ),
    ...(report.aws === undefined ? [] : ['', ...awsModelLines(report.aws, true)]),
    '',
    `![records/s of each strategy over Powertools' at each memory size, one panel per strategy (${dupWords(w.duplicateRate)})](${charts.ratios})`,
    '',
    '### Against Powertools at each size',
    '',
    'Each cell: records/s · p99 batch ms · Node CPU per batch · $ per million deliveries, over the Powertools row the variant is compared with (Powertools with its local cache for the cache rows, Powertools with the order update for the state machine); Powertools rows: their own figures. ' +
      "The last row: the requests the default sent at each size, as its batch log lines named them (`requests`): `batched` (a batch's claims in one request, its completions together) or `per-record` (a request per claim, each record completed as its effect ends).",
    '',
    ...table(versusTable(report)),
    '',
    exactlyOnceLine(report, 'sizes'),
    '',
    `![Batch duration and cost against memory size, one line per variant (${dupWords(w.duplicateRate)})](${charts.raw})`,
    ...coldStartLines(report),
    '',
    '### Targets (shown, not asserted)',
    '',
    ...targetsTable([...sweepTargets(report.sizes), ...coldStartTargets(report.coldStart), exactlyOnceTarget(report.sizes, [])]),
  ];
  for (const size of report.sizes) {
    lines.push(
      '',
      `### ${mb(size.memoryMb)}: ${percent(size.cpuShare)} of a vCPU`,
      '',
      `Quota ${size.quotaUs} µs per ${size.periodUs} µs; \`${size.nodeFlags.join(' ')}\`; ${size.durationS.toFixed(0)} s.`,
      '',
      ...table(sizeTable(size)),
    );
  }
  lines.push(`<!-- bench:end ${key} -->`);
  return lines.join('\n');
}

/** The Lambda Managed Instances section; `chart` is the chart's name relative to the Markdown file. */
export function renderLmiSection(report: LambdaReport, chart: string): string {
  const key = lambdaSectionKey('lmi', report);
  const w = report.workload;
  const lines = [
    `<!-- bench:begin ${key} -->`,
    `## Lambda Managed Instances: many invocations per environment, billed per instance, ${dupWords(w.duplicateRate)}`,
    '',
    ...provenance(report),
    '',
    'How: every variant gets an execution environment of its own, as the Node.js runtime of Lambda Managed Instances runs one: a Node process (bench/lambda/lmi-environment.ts) in a cgroup v1 cpu group of its vCPUs (quota vCPUs × the period), ' +
      'a worker thread per vCPU (bench/lambda/lmi-thread.ts), each with its own init (client and handler), and the invocations in flight spread over the threads, awaited side by side in each; ' +
      "`AWS_LAMBDA_MAX_CONCURRENCY` is the number in flight (set, it tells the library it runs on Managed Instances: the default claim strategy then batches its requests, as the last row of the table against Powertools shows), `AWS_LAMBDA_FUNCTION_MEMORY_SIZE` and each invocation's `context.memoryLimitInMB` the function's memory. " +
      'Records a handler reports failed (a duplicate that found its original still in progress) come again 100 ms later in another invocation, as SQS sends them again; ' +
      `the figure is deliveries per second per vCPU of the steady window (from the first invocation until the last fresh batch is handed out), the median over the slices. Schedule: ${report.schedule}.`,
    ...(report.aws === undefined ? [] : ['', ...awsModelLines(report.aws, true)]),
    '',
    `![records per vCPU-second of each strategy over Powertools', one panel per strategy (${dupWords(w.duplicateRate)})](${chart})`,
    '',
    '### Against Powertools in each configuration',
    '',
    'Each cell: records per vCPU-second · p99 batch ms · CPU per record · $ per million deliveries, over the Powertools row the variant is compared with; Powertools rows: their own figures (CPU: the share of the vCPUs given that was used). ' +
      'The last row: the requests the default sent in each configuration, as its batch log lines named them (`requests`).',
    '',
    ...table(lmiVersusTable(report.lmi)),
    '',
    exactlyOnceLine(report, 'lmi'),
    ...coreWarnings(report.lmi).flatMap((warning) => ['', `**${warning}.**`]),
    '',
    '### Targets (shown, not asserted)',
    '',
    ...targetsTable([...lmiTargets(report.lmi), exactlyOnceTarget([], report.lmi)]),
  ];
  for (const c of report.lmi)
    lines.push(
      '',
      `### ${lmiLabel(c)}`,
      '',
      `${c.memoryMb} MB, quota ${c.quotaUs} µs per ${c.periodUs} µs, ${c.threads} worker thread${c.threads === 1 ? '' : 's'}, ${c.slices} slice${c.slices === 1 ? '' : 's'}; ${c.durationS.toFixed(0)} s.`,
      '',
      ...table(lmiConfigTable(c)),
    );
  lines.push(`<!-- bench:end ${key} -->`);
  return lines.join('\n');
}

/** The cost per use case section. */
export function renderCostSection(report: LambdaReport): string {
  const key = lambdaSectionKey('cost', report);
  const w = report.workload;
  const p = report.aws?.model.prices;
  const lmi = costConfigs(report.lmi);
  const lmiModel = report.aws?.model.lmi;
  return [
    `<!-- bench:begin ${key} -->`,
    `## Cost per use case: $ per million deliveries, ${dupWords(w.duplicateRate)}`,
    '',
    `From the run above (${report.date}; \`${report.command}\`): each use case's variant against the Powertools set-up that does the same work, ` +
      '$ per million deliveries and its ratio. A claim record and Powertools both write the business effect in the handler; the transaction strategy commits it with its idempotency record; ' +
      "the state machine's conditional update is the effect and the idempotency at once, against Powertools with a plain update.",
    '',
    ...table(costTable(report)),
    '',
    ...(p === undefined
      ? ['Without `--aws` the units are counted from the requests sent just the same; the prices are those of bench/aws-model.ts.']
      : [
          `Per memory size: Lambda x86 at $${p.lambdaUsdPerGbSecond} per GB-s for each batch's wall time at that size, rounded up to 1 ms, + $${p.lambdaUsdPerMillionRequests.toFixed(2)} per million requests, ` +
            `+ DynamoDB on-demand in ${p.region} at $${p.writeRequestUnitUsdPerMillion} per million write and $${p.readRequestUnitUsdPerMillion} per million read request units, counted from the requests each variant sent (transactional writes twice).`,
        ]),
    ...(lmi.length === 0 || lmiModel === undefined
      ? []
      : [
          '',
          `On Lambda Managed Instances (per vCPU count, the configuration with the most in flight): the instance's vCPU time per delivery at the rate the environment sustained (records per vCPU-second above), ` +
            `at ${lmiModel.instance} on-demand ($${lmiModel.instanceUsdPerHour} per hour for ${lmiModel.instanceVcpus} vCPUs, checked ${lmiModel.instancePriceChecked}) + the ${(lmiModel.managementFee * 100).toFixed(0)} % management fee = $${lmiUsdPerVcpuHour().toFixed(4)} per vCPU-hour, ` +
            `+ $${lmiModel.requestsUsdPerMillion.toFixed(2)} per million requests + the same DynamoDB units. It assumes the instances are kept as busy as the environment was (the fleet sized to the load); idle instances cost more. Sources: ${lmiModel.sources.join('; ')}.`,
        ]),
    `<!-- bench:end ${key} -->`,
  ].join('\n');
}

/** Writes every section and chart the run has beside `docsPath`; returns the charts' paths. */
export async function writeLambdaDocs(docsPath: string, report: LambdaReport): Promise<string[]> {
  mkdirSync(dirname(docsPath), { recursive: true });
  const written: string[] = [];
  const chart = async (key: string, spec: Parameters<typeof renderSvg>[0]) => {
    const file = chartPath(docsPath, key);
    writeFileSync(file, `${await renderSvg(spec)}\n`);
    written.push(file);
    return basename(file);
  };
  const dup = dupSuffix(report.workload.duplicateRate, benchDefaults.duplicateRate);
  if (report.sizes.length > 0) {
    const charts = {
      ratios: await chart(`power${dup}`, ratioChartSpec(report)),
      raw: await chart(`power-raw${dup}`, powerChartSpec(report)),
    };
    writeSection(docsPath, renderPowerSection(report, charts), lambdaSectionKey('power', report));
  }
  if (report.lmi.length > 0)
    writeSection(docsPath, renderLmiSection(report, await chart(`lmi${dup}`, lmiChartSpec(report))), lambdaSectionKey('lmi', report));
  writeSection(docsPath, renderCostSection(report), lambdaSectionKey('cost', report));
  return written;
}
