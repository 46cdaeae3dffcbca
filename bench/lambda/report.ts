/**
 * The sweep's tables, shared by the text report on stdout and the Markdown
 * section (cells as strings, laid out by each).
 */
import { effectsCell, fixed, times } from '../report.js';
import type { SizeVariantResult } from './figures.js';
import type { SizeResult, SweepColdStart, SweepReport } from './results.js';

export interface Table {
  readonly head: string[];
  readonly rows: string[][];
}

const mb = (n: number) => `${n.toLocaleString('en-US')} MB`;
const usd = (n: number | null) => (n === null || !Number.isFinite(n) ? '-' : `$${n.toFixed(3)}`);

/** A cell of the "against Powertools" matrix: records/s, p99, CPU and $ over the compared row's. */
export function ratioCell(v: SizeVariantResult | undefined): string {
  if (v === undefined) return '';
  const r = v.ratios;
  if (r === null) {
    const f = v.figures;
    return `${fixed(f.recordsPerSecond, 0)}/s · p99 ${fixed(f.p99Ms, 0)} ms · ${fixed(f.cpuMsPerBatch, 1)} ms · ${usd(v.lambda.usdPerMillionDeliveries)}`;
  }
  return [r.recordsPerSecond, r.p99, r.cpu, r.usd].map(times).join(' · ');
}

/** Variants in the order of the first size that has them. */
function variantOrder(sizes: readonly SizeResult[]): Array<{ id: string; title: string }> {
  const seen = new Map<string, string>();
  for (const s of sizes) for (const v of s.variants) if (!seen.has(v.id)) seen.set(v.id, v.title);
  return [...seen].map(([id, title]) => ({ id, title }));
}

/**
 * One row per variant, one column per size: "records/s · p99 · CPU · $", each
 * over the Powertools row it is compared with; Powertools' own rows give
 * their figures (records/s, p99 ms, CPU ms per batch, $ per million).
 */
export function versusTable(report: Pick<SweepReport, 'sizes'>): Table {
  const sizes = report.sizes;
  return {
    head: ['variant (vs Powertools: records/s · p99 · CPU · $)', ...sizes.map((s) => mb(s.memoryMb))],
    rows: variantOrder(sizes).map(({ id, title }) => [title, ...sizes.map((s) => ratioCell(s.variants.find((v) => v.id === id)))]),
  };
}

/** One size in full. */
export function sizeTable(size: SizeResult): Table {
  return {
    head: [
      'variant',
      'records/s',
      'vs PT',
      'p50 ms',
      'p99 ms',
      'p99 vs PT',
      'CPU ms/batch',
      'CPU vs PT',
      'billed ms/batch',
      '$ / M deliveries',
      '$ vs PT',
      'of which Lambda $',
      'throttled ms/batch',
      'req/delivery',
      'effects/unique',
    ],
    rows: size.variants.map((v) => {
      const f = v.figures;
      const r = v.ratios;
      return [
        v.title,
        fixed(f.recordsPerSecond, 0),
        times(r?.recordsPerSecond ?? null),
        fixed(f.p50Ms, 1),
        fixed(f.p99Ms, 1),
        times(r?.p99 ?? null),
        fixed(f.cpuMsPerBatch, 1),
        times(r?.cpu ?? null),
        fixed(v.lambda.billedMsPerBatch, 1),
        usd(v.lambda.usdPerMillionDeliveries),
        times(r?.usd ?? null),
        usd(v.lambda.lambdaUsdPerMillionDeliveries),
        fixed(v.throttledMsPerBatch, 1),
        fixed(f.requestsPerDelivery, 2),
        `${effectsCell(v)}${v.notExactlyOnce === undefined ? '' : ' !!'}`,
      ];
    }),
  };
}

export function coldStartTable(c: SweepColdStart): Table {
  return {
    head: [
      'memory',
      'ours: init ms',
      'Powertools: init ms',
      'ours / PT',
      'ours: import + 1st batch ms',
      'PT: import + 1st batch ms',
      'ours: Node boot ms',
      'PT: Node boot ms',
      'ours: CPU ms',
      'PT: CPU ms',
    ],
    rows: c.sizes.map((s) => [
      mb(s.memoryMb),
      fixed(s.ours.initMs, 0),
      fixed(s.powertools.initMs, 0),
      times(s.initRatio),
      `${fixed(s.ours.importMs, 0)} + ${fixed(s.ours.firstBatchMs, 0)}`,
      `${fixed(s.powertools.importMs, 0)} + ${fixed(s.powertools.firstBatchMs, 0)}`,
      fixed(s.ours.bootMs, 0),
      fixed(s.powertools.bootMs, 0),
      fixed(s.ours.cpuMs, 0),
      fixed(s.powertools.cpuMs, 0),
    ]),
  };
}

/** The variants and sizes that were not exactly once, one line each. */
export function exactlyOnceProblems(sizes: readonly SizeResult[]): string[] {
  return sizes.flatMap((s) =>
    s.variants.filter((v) => v.notExactlyOnce !== undefined).map((v) => `${v.title} at ${mb(s.memoryMb)}: ${v.notExactlyOnce}`),
  );
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
    .join('  ')
    .trimEnd();
}

export function textTable(t: Table): string[] {
  const widths = t.head.map((h, i) => Math.max(h.length, ...t.rows.map((r) => (r[i] ?? '').length)));
  return [pad(t.head, widths), ...t.rows.map((r) => pad(r, widths))];
}

/** The sweep for people, on stdout. */
export function formatSweepText(report: SweepReport): string {
  const w = report.workload;
  const m = report.machine;
  const lines = [
    `effectively-once vs Powertools ${report.versions.powertoolsIdempotency}, Lambda-shaped sweep (${report.sizes.map((s) => mb(s.memoryMb)).join(', ')}), ${report.date} (${report.durationS.toFixed(0)} s)`,
    `${m.cpus} cores (${m.cpuModel}), Node ${report.versions.node}, ${m.os}, load ${fixed(m.loadBefore, 2)} -> ${fixed(m.loadAfter ?? Number.NaN, 2)}`,
    `${w.events} events + ${w.duplicates} duplicate deliveries = ${w.deliveries} in ${w.batches} batches of ${w.batchSize} (seed ${w.seed}), ${w.warmupBatches} warm-up batches per size; ` +
      (w.aws ? 'the AWS latency floor per request (aws-model.ts)' : `added latency ${w.latencyMs} ms per request`),
    `Schedule: ${report.schedule}.`,
    ...report.quotaChecks.map(
      (c) =>
        `Quota check at ${mb(c.memoryMb)}: ${(c.measuredShare * 100).toFixed(1)} % of a vCPU (expected ${(c.expectedShare * 100).toFixed(1)} %).`,
    ),
    '',
    ...textTable(versusTable(report)),
  ];
  for (const size of report.sizes) {
    lines.push(
      '',
      `${mb(size.memoryMb)}: ${(size.cpuShare * 100).toFixed(1)} % of a vCPU (quota ${size.quotaUs} / ${size.periodUs} µs), ${size.nodeFlags.join(' ')}, ${size.durationS.toFixed(0)} s`,
    );
    lines.push(...textTable(sizeTable(size)));
  }
  if (report.coldStart !== undefined) {
    lines.push(
      '',
      `Cold start per size (import + first batch of 10 fresh records, median of ${report.coldStart.sizes[0]?.samples ?? 0} fresh processes):`,
    );
    lines.push(...textTable(coldStartTable(report.coldStart)));
  }
  lines.push('', 'Targets (shown, not asserted):');
  for (const t of report.targets)
    lines.push(`  ${t.target}: ${t.measured} -> ${t.met === null ? 'not measured' : t.met ? 'met' : `missed: ${t.shortfall ?? ''}`}`);
  if (report.problems.length > 0) {
    lines.push('', '!! NOT EXACTLY ONCE:');
    for (const p of report.problems) lines.push(`!!   ${p}`);
  }
  return `${lines.join('\n')}\n`;
}
