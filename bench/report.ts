/**
 * The one-process bench for people on stdout: the summary table, the
 * targets, the cold start and the correctness comparison; and the cold-start
 * tables every kind of run shares. The Markdown section (docs.ts) uses the
 * same cells.
 */
import type { FencingResult } from './fencing.js';
import { effectsCell, fixed, type Table, textTable, times } from './format.js';
import type { ColdStartFigures, HandlerColdStart, ProcessReport, TargetCheck, VariantResult } from './results.js';

export function commandsCell(r: VariantResult): string {
  const entries = Object.entries(r.figures.byCommand).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '(none)' : entries.map(([name, n]) => `${name} ${n.toFixed(2)}`).join(', ');
}

/** `--aws`: the columns of the headline table (the AWS model's two added: $ and Lambda ms at 256 MB). */
export function awsColumns(report: ProcessReport): Table {
  const head = [
    'variant',
    'records/s',
    'vs PT',
    'p50 ms',
    'p99 ms',
    'CPU ms/batch node',
    '$ / M deliveries',
    'Lambda ms/batch @256 MB',
    'req/delivery',
    'fresh',
    'dup',
    'WRU/delivery',
    'RRU/delivery',
    'ms/request',
    'CPU ms/batch DynamoDB Local',
    'effects/unique',
    'requests per delivery by command',
  ];
  const rows = report.variants.map((r) => {
    const f = r.figures;
    return [
      r.title,
      fixed(f.recordsPerSecond, 0),
      times(r.ratio),
      fixed(f.p50Ms, 1),
      fixed(f.p99Ms, 1),
      fixed(f.cpuMsPerBatch, 1),
      fixed(f.usdPerMillionDeliveries, 3),
      fixed(f.lambdaMs256, 1),
      fixed(f.requestsPerDelivery, 2),
      fixed(f.requestsSplit.fresh, 2),
      fixed(f.requestsSplit.duplicate, 2),
      fixed(f.wruPerDelivery, 2),
      fixed(f.rruPerDelivery, 2),
      fixed(f.requestMs, 1),
      fixed(f.serverCpuMsPerBatch, 1),
      effectsCell(r),
      commandsCell(r),
    ];
  });
  return { head, rows };
}

/** The columns of the summary, as header and cells per variant. */
export function summaryColumns(report: ProcessReport): Table {
  if (report.workload.aws) return awsColumns(report);
  const units = report.workload.unitsCounted;
  const head = [
    'variant',
    'records/s',
    'vs PT',
    'req/delivery',
    'fresh',
    'dup',
    ...(units ? ['units/delivery'] : []),
    'p50 ms',
    'p99 ms',
    '1st effect ms',
    'ms/request',
    'CPU ms/batch node',
    'CPU ms/batch DynamoDB Local',
    'effects/unique',
    'requests per delivery by command',
  ];
  const rows = report.variants.map((r) => {
    const f = r.figures;
    return [
      r.title,
      fixed(f.recordsPerSecond, 0),
      times(r.ratio),
      fixed(f.requestsPerDelivery, 2),
      fixed(f.requestsSplit.fresh, 2),
      fixed(f.requestsSplit.duplicate, 2),
      ...(units ? [fixed(f.unitsPerDelivery, 2)] : []),
      fixed(f.p50Ms, 1),
      fixed(f.p99Ms, 1),
      fixed(f.firstEffectMs, 1),
      fixed(f.requestMs, 1),
      fixed(f.cpuMsPerBatch, 1),
      fixed(f.serverCpuMsPerBatch, 1),
      effectsCell(r),
      commandsCell(r),
    ];
  });
  return { head, rows };
}

/** Lines worth a warning under the table: failed records, errors, wrong effect counts. */
export function anomalies(report: ProcessReport): string[] {
  const lines: string[] = [];
  for (const r of report.variants) {
    if (r.figures.failures > 0) lines.push(`${r.title}: ${r.figures.failures} records reported in batchItemFailures`);
    if (r.error !== undefined) lines.push(`${r.title}: ${r.error}`);
    if (r.idempotent && r.effects.applied !== r.effects.unique)
      lines.push(`${r.title}: ${r.effects.applied} effects applied for ${r.effects.unique} unique events`);
  }
  return lines;
}

/**
 * With `--units`: each variant that costs more capacity units per delivery
 * than the Powertools row it is compared with, said plainly, with the reason
 * when it sends transactions (DynamoDB bills each item of a transaction twice).
 */
export function unitsNotes(report: ProcessReport): string[] {
  if (!report.workload.unitsCounted) return [];
  const byId = new Map(report.variants.map((r) => [r.id, r]));
  return report.variants.flatMap((r) => {
    const pt = r.comparedWith === undefined ? undefined : byId.get(r.comparedWith);
    const ours = r.figures.unitsPerDelivery;
    const theirs = pt?.figures.unitsPerDelivery;
    if (pt === undefined || ours == null || theirs == null || ours <= theirs + 0.005) return [];
    const why =
      (r.figures.byCommand['TransactWriteItems'] ?? 0) > 0 ? ': transactional writes are billed twice (each item 2 WCU per KB)' : '';
    return [
      `${r.title}: ${ours.toFixed(2)} capacity units per delivery vs ${pt.title} ${theirs.toFixed(2)} (${(ours / theirs).toFixed(2)}x)${why}.`,
    ];
  });
}

export function targetVerdict(t: TargetCheck): string {
  if (t.met === null) return 'not measured';
  return t.met ? 'met' : `missed: ${t.shortfall ?? ''}`;
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** The bundles: bytes, gzip bytes, what they are made of, and their import at full CPU. */
export function bundleTable(c: ColdStartFigures): Table {
  const row = (label: string, h: HandlerColdStart) => [
    label,
    kb(h.bytes),
    kb(h.gzipBytes),
    fixed(h.importMs, 1),
    fixed(h.libraryImportMs, 1),
    h.parts.map((p) => `${p.name} ${(p.bytes / 1000).toFixed(1)}k`).join(', '),
  ];
  return {
    head: ['handler', 'minified', 'gzip', 'import ms', 'import ms, SDK loaded before', 'bundle by package / folder'],
    rows: [
      row("ours: the README's claim handler (main entry, DynamoDBClaimStore, @middy/core)", c.ours),
      row('Powertools idempotency + batch', c.powertools),
    ],
  };
}

/** The import step by step: each SDK module either side leaves external, then each bundle, ms (median); `-` where a side does not load it. */
export function importStepsTable(c: ColdStartFigures): Table {
  const modules = [...new Set([...c.ours.steps, ...c.powertools.steps].map((s) => s.module))];
  const sdk = modules.filter((m) => m !== 'bundle');
  const ms = (h: HandlerColdStart, module: string) => fixed(h.steps.find((s) => s.module === module)?.ms, 1);
  return {
    head: ['import step (at full CPU, in this order)', 'ours ms', 'Powertools ms'],
    rows: [
      ...sdk.map((m) => [m, ms(c.ours, m), ms(c.powertools, m)]),
      ['the handler bundle (its top level: clients and middleware built)', ms(c.ours, 'bundle'), ms(c.powertools, 'bundle')],
      ['all of it', fixed(c.ours.importMs, 1), fixed(c.powertools.importMs, 1)],
    ],
  };
}

export function fencingRows(results: readonly FencingResult[]): string[][] {
  return results.map((r) => [r.variant, r.side, r.aWrite, r.aOutcome, r.cOutcome, `${r.executions} (A, B${r.cRan ? ', C' : ''})`]);
}

export const fencingHead = ['A finishes late by', 'side', "A's late write", "A's message", 'C while B still runs', 'effect ran'];

/** The human-readable report. */
export function formatProcessText(report: ProcessReport): string {
  const w = report.workload;
  const m = report.machine;
  const where = report.aws === undefined ? 'on DynamoDB Local' : `on the AWS model (bench/aws-model.ts; ${report.aws.pinning})`;
  const lines = [
    `effectively-once vs Powertools ${report.versions.powertoolsIdempotency} ${where}, ${report.date} (${report.durationS.toFixed(0)} s)`,
    `${m.cpus} cores (${m.cpuModel}), Node ${report.versions.node}, ${m.os}, load ${fixed(m.loadBefore, 2)} -> ${fixed(m.loadAfter ?? Number.NaN, 2)}${report.priority === undefined ? '' : `; ${report.priority}`}`,
    `${w.events} events + ${w.duplicates} duplicate deliveries = ${w.deliveries} in ${w.batches} batches of ${w.batchSize} (seed ${w.seed}), ` +
      `interleaved batch by batch after ${w.warmupBatches} warm-up batches; ` +
      (w.aws ? 'a Lambda-side latency floor per request (aws-model.ts)' : `added latency ${w.latencyMs} ms per request`),
    "records/s: median of the run's slices; vs PT: median of the slice ratios to the Powertools row compared with.",
    'req/delivery: DynamoDB requests per delivery; fresh | dup: per first / repeated delivery (least squares over batches).',
    '',
  ];
  lines.push(...textTable(summaryColumns(report), { freeLast: true }));
  for (const a of anomalies(report)) lines.push(`  ! ${a}`);
  for (const u of unitsNotes(report)) lines.push(`  units: ${u}`);
  lines.push('', 'Targets (shown, not asserted):');
  for (const t of report.targets) lines.push(`  ${t.target}: ${t.measured} -> ${targetVerdict(t)}`);
  if (report.coldStart !== undefined) {
    const c = report.coldStart;
    lines.push(
      '',
      `Cold start (${c.build}; import: median of ${c.samples} fresh node processes, ${c.fullCpu}):`,
      ...textTable(bundleTable(c), { freeLast: true }),
      '',
      ...textTable(importStepsTable(c)),
    );
  }
  if (report.fencing.length > 0) {
    lines.push(
      '',
      'Correctness: lease takeover (observed, not asserted):',
      ...textTable({ head: fencingHead, rows: fencingRows(report.fencing) }, { freeLast: true }),
    );
  }
  return `${lines.join('\n')}\n`;
}
