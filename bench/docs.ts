/**
 * The one-process bench's Markdown section (`docs/benchmarks.md` by
 * default), keyed by its added latency (or `aws`) and duplicate rate,
 * between marker comments (sections.ts): the default run and the `--latency 5`
 * run sit side by side, and the notes written by hand around them stay.
 */
import { benchDefaults } from './args.js';
import { awsModelLines } from './aws-docs.js';
import { fixed, markdownTable } from './format.js';
import { anomalies, bundleTable, fencingHead, fencingRows, importStepsTable, summaryColumns, targetVerdict, unitsNotes } from './report.js';
import type { ProcessReport } from './results.js';
import { dupSuffix, writeSection } from './sections.js';

/**
 * The section key: `aws` for the AWS model, else one per added latency; the
 * default duplicate rate keeps the plain key, another adds `-dup-R`.
 */
export function sectionKey(report: Pick<ProcessReport, 'workload'>): string {
  const { latencyMs, duplicateRate, aws } = report.workload;
  return `${aws ? 'aws' : `latency-${latencyMs}`}${dupSuffix(duplicateRate, benchDefaults.duplicateRate)}`;
}

function heading(report: ProcessReport): string {
  const { latencyMs: ms, duplicateRate, aws } = report.workload;
  const dup = `${Number((duplicateRate * 100).toFixed(2))} % duplicates`;
  if (aws) return `AWS model: Lambda-side latency floor per request, DynamoDB Local on its own core, ${dup}`;
  const base = ms === 0 ? 'DynamoDB Local, no added latency' : `DynamoDB Local + ${ms} ms added to every request (a region's round trip)`;
  return `${base}, ${dup}`;
}

function preamble(report: ProcessReport): string[] {
  const m = report.machine;
  const v = report.versions;
  const w = report.workload;
  const cold = report.coldStart === undefined ? '' : `; esbuild ${report.coldStart.esbuild}`;
  return [
    `Command: \`${report.command}\` — ${report.date}, ${report.durationS.toFixed(0)} s.`,
    '',
    `Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGb} GB, ${m.os}; 1-minute load ${fixed(m.loadBefore, 2)} at the start, ${fixed(m.loadAfter ?? Number.NaN, 2)} at the end (${report.aws === undefined ? 'DynamoDB Local and the bench share the cores' : `${report.aws.pinning}; other processes on the machine may use both`}).${report.priority === undefined ? '' : ` Priority: ${report.priority}.`}`,
    '',
    `Versions: Node ${v.node}; effectively-once ${v.ours}; Powertools idempotency ${v.powertoolsIdempotency}, batch ${v.powertoolsBatch}; AWS SDK ${v.awsSdk}; @middy/core ${v.middy}; DynamoDB Local ${v.dynamodbLocal}${cold}.`,
    '',
    `Workload: ${w.events} business events + ${w.duplicates} duplicate deliveries under new message ids = ${w.deliveries} deliveries in ${w.batches} SQS batches of ${w.batchSize} (seed ${w.seed}), ` +
      `the same for every variant, each on fresh tables; interleaved batch by batch (first variant rotating) after ${w.warmupBatches} warm-up batches; ` +
      `records/s is the median over ${w.slices} slices of the run.${w.unitsCounted ? ' Capacity units counted (ReturnConsumedCapacity on every request).' : ''}`,
  ];
}

/** The Markdown of one run, markers included. */
export function renderSection(report: ProcessReport): string {
  const key = sectionKey(report);
  const summary = summaryColumns(report);
  const lines = [
    `<!-- bench:begin ${key} -->`,
    `## ${heading(report)}`,
    '',
    ...preamble(report),
    ...(report.aws === undefined ? [] : ['', ...awsModelLines(report.aws)]),
    '',
    ...markdownTable(summary.head, summary.rows),
  ];
  const warnings = anomalies(report);
  if (warnings.length > 0) lines.push('', ...warnings.map((a) => `- **${a}**`));
  const units = unitsNotes(report);
  if (units.length > 0) lines.push('', ...units.map((u) => `- ${u}`));
  lines.push(
    '',
    '### Targets',
    '',
    ...markdownTable(
      ['target', 'measured', 'verdict'],
      report.targets.map((t) => [t.target, t.measured, targetVerdict(t)]),
    ),
  );
  if (report.coldStart !== undefined) {
    const c = report.coldStart;
    lines.push(
      '',
      '### Cold start',
      '',
      `${c.build}; import time: median of ${c.samples} fresh \`node\` processes each, ${c.fullCpu}.`,
      '',
      ...markdownTable(bundleTable(c).head, bundleTable(c).rows),
      '',
      ...markdownTable(importStepsTable(c).head, importStepsTable(c).rows),
    );
  }
  if (report.fencing.length > 0) {
    lines.push('', '### Lease takeover (observed, not asserted)', '', ...markdownTable(fencingHead, fencingRows(report.fencing)));
  }
  lines.push(`<!-- bench:end ${key} -->`);
  return lines.join('\n');
}

/** Writes the run's section into the Markdown report at `path`. */
export function writeProcessDocs(path: string, report: ProcessReport): void {
  writeSection(path, renderSection(report), sectionKey(report));
}
