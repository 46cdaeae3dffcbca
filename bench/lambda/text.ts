/**
 * A Lambda-shaped run for people, on stdout: the tables of report.ts laid
 * out for a terminal, with the run's header, the targets and, loudly, what
 * was not exactly once.
 */
import { bundleTable, importStepsTable, targetVerdict } from '../report.js';
import { fixed, mb, percent, textTable } from '../format.js';
import type { ColdStartFigures, LambdaReport } from '../results.js';
import { coldStartSizeTable, coreWarnings, costTable, lmiConfigTable, lmiLabel, lmiVersusTable, sizeTable, versusTable } from './report.js';

function sweepText(report: LambdaReport): string[] {
  const lines = ['', ...textTable(versusTable(report))];
  for (const size of report.sizes) {
    lines.push(
      '',
      `${mb(size.memoryMb)}: ${percent(size.cpuShare)} of a vCPU (quota ${size.quotaUs} / ${size.periodUs} µs), ${size.nodeFlags.join(' ')}, ${size.durationS.toFixed(0)} s`,
      ...textTable(sizeTable(size)),
    );
  }
  return lines;
}

function lmiText(report: LambdaReport): string[] {
  if (report.lmi.length === 0) return [];
  const lines = [
    '',
    'Lambda Managed Instances (records per vCPU-second of the environment, steady window):',
    ...textTable(lmiVersusTable(report.lmi)),
  ];
  for (const c of report.lmi)
    lines.push(
      '',
      `LMI ${lmiLabel(c)}: ${c.memoryMb} MB, quota ${c.quotaUs} / ${c.periodUs} µs, ${c.slices} slices, ${c.durationS.toFixed(0)} s`,
      ...textTable(lmiConfigTable(c)),
    );
  for (const w of coreWarnings(report.lmi)) lines.push(`!! ${w}`);
  return lines;
}

function coldStartText(c: ColdStartFigures | undefined): string[] {
  if (c === undefined) return [];
  return [
    '',
    `Cold start per size (import + first batch of 10 fresh records, median of ${c.samples} fresh processes per side, size and mode):`,
    ...textTable(coldStartSizeTable(c)),
    '',
    `Bundles and import at full CPU (${c.fullCpu}):`,
    ...textTable(bundleTable(c), { freeLast: true }),
    '',
    ...textTable(importStepsTable(c)),
  ];
}

/** A Lambda-shaped run for people, on stdout. */
export function formatLambdaText(report: LambdaReport): string {
  const w = report.workload;
  const m = report.machine;
  const what = [
    ...(report.sizes.length > 0 ? [`memory sweep (${report.sizes.map((s) => mb(s.memoryMb)).join(', ')})`] : []),
    ...(report.lmi.length > 0 ? [`Lambda Managed Instances (${report.lmi.map(lmiLabel).join(', ')})`] : []),
  ];
  const lines = [
    `effectively-once vs Powertools ${report.versions.powertoolsIdempotency}, Lambda-shaped: ${what.join(' and ')}, ${report.date} (${report.durationS.toFixed(0)} s)`,
    `${m.cpus} cores (${m.cpuModel}), Node ${report.versions.node}, ${m.os}, load ${fixed(m.loadBefore, 2)} -> ${fixed(m.loadAfter ?? Number.NaN, 2)}${report.priority === undefined ? '' : `; ${report.priority}`}`,
    `${w.events} events + ${w.duplicates} duplicate deliveries = ${w.deliveries} in ${w.batches} batches of ${w.batchSize} (seed ${w.seed}), ${w.warmupBatches} warm-up batches; ` +
      (w.aws ? 'the AWS latency floor per request (aws-model.ts)' : `added latency ${w.latencyMs} ms per request`),
    `Schedule: ${report.schedule}.`,
    ...report.quotaChecks.map(
      (c) => `Quota check at ${mb(c.memoryMb)}: ${percent(c.measuredShare)} of a vCPU (expected ${percent(c.expectedShare)}).`,
    ),
    ...(report.sizes.length > 0 ? sweepText(report) : []),
    ...lmiText(report),
    ...coldStartText(report.coldStart),
    '',
    'Cost per use case, $ per million deliveries:',
    ...textTable(costTable(report)),
    '',
    'Targets (shown, not asserted):',
    ...report.targets.map((t) => `  ${t.target}: ${t.measured} -> ${targetVerdict(t)}`),
  ];
  if (report.problems.length > 0) lines.push('', '!! NOT EXACTLY ONCE:', ...report.problems.map((p) => `!!   ${p}`));
  return `${lines.join('\n')}\n`;
}
