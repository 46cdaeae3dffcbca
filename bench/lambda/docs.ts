/**
 * The sweep's Markdown section (key `power`, `power-dup-R` for another
 * duplicate rate) and its chart, written beside the Markdown report:
 * docs/benchmarks.md → docs/benchmarks-power.svg. The sweep's sections lead
 * the file (docs.ts `sectionRank`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { benchDefaults } from '../args.js';
import { awsModelLines } from '../aws-docs.js';
import { markdownTable, writeSection } from '../docs.js';
import { fixed, targetVerdict } from '../report.js';
import { powerChartSpec, renderSvg } from './chart.js';
import { quotaHolds } from './quota-check.js';
import { coldStartTable, exactlyOnceProblems, sizeTable, versusTable } from './report.js';
import type { SweepReport } from './results.js';

export function sweepSectionKey(report: Pick<SweepReport, 'workload'>): string {
  const rate = report.workload.duplicateRate;
  return rate === benchDefaults.duplicateRate ? 'power' : `power-dup-${rate}`;
}

/** The chart's file for a Markdown report at `docsPath`: beside it, named after it and the section. */
export function chartPath(docsPath: string, key: string): string {
  return join(dirname(docsPath), `${basename(docsPath, extname(docsPath))}-${key}.svg`);
}

const mb = (n: number) => `${n.toLocaleString('en-US')} MB`;

/** The section's Markdown, markers included; `chartFile` is the chart's name relative to the Markdown file. */
export function renderSweepSection(report: SweepReport, chartFile: string): string {
  const key = sweepSectionKey(report);
  const m = report.machine;
  const v = report.versions;
  const w = report.workload;
  const dup = `${Number((w.duplicateRate * 100).toFixed(2))} % duplicates`;
  const lines = [
    `<!-- bench:begin ${key} -->`,
    `## Lambda-shaped sweep: each handler at its memory size's share of a vCPU, ${dup}`,
    '',
    `Command: \`${report.command}\` — ${report.date}, ${report.durationS.toFixed(0)} s.`,
    '',
    `Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGb} GB, ${m.os}; 1-minute load ${fixed(m.loadBefore, 2)} at the start, ${fixed(m.loadAfter ?? Number.NaN, 2)} at the end` +
      `${report.aws === undefined ? '' : ` (${report.aws.pinning}; other processes on the machine may use both)`}.`,
    '',
    `Versions: Node ${v.node}; effectively-once ${v.ours}; Powertools idempotency ${v.powertoolsIdempotency}, batch ${v.powertoolsBatch}; AWS SDK ${v.awsSdk}; @middy/core ${v.middy}; DynamoDB Local ${v.dynamodbLocal}.`,
    '',
    `Workload: ${w.events} business events + ${w.duplicates} duplicate deliveries under new message ids = ${w.deliveries} deliveries in ${w.batches} SQS batches of ${w.batchSize} (seed ${w.seed}) at every size, ` +
      `${w.warmupBatches} warm-up batches per variant and size; records/s is the median over ${w.slices} slices, its ratio the median of the slice-by-slice ratios.`,
    '',
    `How: every variant's handler runs in a Node process of its own (bench/lambda/worker.ts, bundled with esbuild) inside a cgroup v1 cpu group whose CFS quota is the size's share of one vCPU ` +
      `(memory / 1,769 MB; one vCPU at 1,769 MB and above), joined before Node starts, with the heap flags Lambda's Node.js runtime gives the size and \`AWS_LAMBDA_FUNCTION_MEMORY_SIZE\` set. ` +
      `Wall time and CPU are measured inside that process; DynamoDB Local is outside every group. Schedule: ${report.schedule}. ` +
      `Billed ms: each batch's wall time rounded up to 1 ms; $ / M deliveries: Lambda GB-s at the size + requests + DynamoDB on-demand units counted from the requests sent.`,
    '',
    ...report.quotaChecks.map(
      (c) =>
        `Quota check: a busy loop in a ${mb(c.memoryMb)} group got ${c.cpuMs.toFixed(0)} ms of CPU in ${c.wallMs.toFixed(0)} ms (${(c.measuredShare * 100).toFixed(1)} % of a vCPU, expected ${(c.expectedShare * 100).toFixed(1)} %)${quotaHolds(c) ? '.' : ': **off by more than 25 %**.'}`,
    ),
    ...(report.aws === undefined ? [] : ['', ...awsModelLines(report.aws, true)]),
    '',
    `![Duration and cost against memory size, one line per variant (${dup})](${chartFile})`,
    '',
    '### Against Powertools at each size',
    '',
    'Each cell: records/s · p99 batch ms · Node CPU per batch · $ per million deliveries, over the Powertools row the variant is compared with (Powertools with its local cache for the cache rows, Powertools with the order update for the state machine); Powertools rows: their own figures.',
    '',
    ...markdownTable(versusTable(report).head, versusTable(report).rows),
  ];
  const problems = exactlyOnceProblems(report.sizes);
  lines.push(
    '',
    problems.length === 0
      ? `Every idempotent variant applied each of the ${w.events} events exactly once at every size (effects and points read back from the tables; no record failed).`
      : `**Not exactly once:** ${problems.join('; ')}.`,
  );
  if (report.coldStart !== undefined) {
    const c = report.coldStart;
    const t = coldStartTable(c);
    lines.push(
      '',
      '### Cold start per size',
      '',
      `The README's claim handler (bench/cold-start/ours-handler.ts, ${c.ours.bytes} bytes minified) and Powertools' equivalent (bench/cold-start/powertools-handler.ts, ${c.powertools.bytes} bytes), ${c.build}, esbuild ${c.esbuild}: ` +
        `each in a fresh process in a group of the size from its first instruction; init = the bundle's import + its first batch of 10 fresh records (DynamoDB Local, no latency floor); ` +
        `median of ${c.sizes[0]?.samples ?? 0} processes per side and size, the sides alternating. Node boot: from the process's start to the runner's first line, not in init.`,
      '',
      ...markdownTable(t.head, t.rows),
    );
  }
  lines.push(
    '',
    '### Targets (issue 31; shown, not asserted)',
    '',
    ...markdownTable(
      ['target', 'measured', 'verdict'],
      report.targets.map((t) => [t.target, t.measured, targetVerdict(t)]),
    ),
  );
  for (const size of report.sizes) {
    const t = sizeTable(size);
    lines.push(
      '',
      `### ${mb(size.memoryMb)}: ${(size.cpuShare * 100).toFixed(1)} % of a vCPU`,
      '',
      `Quota ${size.quotaUs} µs per ${size.periodUs} µs; \`${size.nodeFlags.join(' ')}\`; ${size.durationS.toFixed(0)} s.`,
      '',
      ...markdownTable(t.head, t.rows),
    );
  }
  lines.push(`<!-- bench:end ${key} -->`);
  return lines.join('\n');
}

/** Writes the chart beside `docsPath` and the section into it; returns the chart's path. */
export async function writeSweepDocs(docsPath: string, report: SweepReport): Promise<string> {
  const key = sweepSectionKey(report);
  const chart = chartPath(docsPath, key);
  mkdirSync(dirname(chart), { recursive: true });
  writeFileSync(chart, `${await renderSvg(powerChartSpec(report))}\n`);
  writeSection(docsPath, renderSweepSection(report, basename(chart)), key);
  return chart;
}
