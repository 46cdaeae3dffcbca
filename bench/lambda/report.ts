/**
 * The Lambda-shaped runs' tables (the memory sweep, the cold start per size,
 * Lambda Managed Instances, the cost per use case). Cells as strings, laid
 * out by the text report on stdout (text.ts) or the Markdown sections
 * (docs.ts).
 */
import { effectsCell, fixed, mb, patternsCell, percent, type Table, times, usd } from '../format.js';
import type { ColdStartFigures, LambdaReport, LmiConfigResult, LmiVariantResult, SizeResult, SizeVariantResult } from '../results.js';
import type { RequestPatterns } from '../stats.js';
import { DEFAULT_CLAIM } from './targets.js';

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

/** Variants in the order of the first group that has them. */
function variantOrder(
  groups: ReadonlyArray<{ variants: ReadonlyArray<{ id: string; title: string }> }>,
): Array<{ id: string; title: string }> {
  const seen = new Map<string, string>();
  for (const g of groups) for (const v of g.variants) if (!seen.has(v.id)) seen.set(v.id, v.title);
  return [...seen].map(([id, title]) => ({ id, title }));
}

/** The label of the row that says which requests the default sent in each size or configuration. */
export const DEFAULT_REQUESTS_ROW = "ours, default: its requests (the batch log line's `requests`)";

/**
 * The row of the default's request pattern in each group (size or configuration), as its batch log lines named
 * it; none when the default did not run.
 */
function defaultRequestsRow(
  groups: ReadonlyArray<{ variants: ReadonlyArray<{ id: string; figures: { requestPatterns: RequestPatterns } }> }>,
): string[][] {
  const cells = groups.map((g) => g.variants.find((v) => v.id === DEFAULT_CLAIM));
  if (cells.every((v) => v === undefined)) return [];
  return [[DEFAULT_REQUESTS_ROW, ...cells.map((v) => (v === undefined ? '' : patternsCell(v.figures.requestPatterns)))]];
}

/**
 * One row per variant, one column per size: "records/s · p99 · CPU · $", each
 * over the Powertools row it is compared with; Powertools' own rows give
 * their figures (records/s, p99 ms, CPU ms per batch, $ per million). Last,
 * the requests the default chose at each size.
 */
export function versusTable(report: Pick<LambdaReport, 'sizes'>): Table {
  const sizes = report.sizes;
  return {
    head: ['variant (vs Powertools: records/s · p99 · CPU · $)', ...sizes.map((s) => mb(s.memoryMb))],
    rows: [
      ...variantOrder(sizes).map(({ id, title }) => [title, ...sizes.map((s) => ratioCell(s.variants.find((v) => v.id === id)))]),
      ...defaultRequestsRow(sizes),
    ],
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
      'requests (log line)',
      'effects/unique',
    ],
    rows: size.variants.map((v) => {
      const f = v.figures;
      const r = v.ratios;
      return [
        v.title,
        fixed(f.recordsPerSecond, 0),
        times(r?.recordsPerSecond),
        fixed(f.p50Ms, 1),
        fixed(f.p99Ms, 1),
        times(r?.p99),
        fixed(f.cpuMsPerBatch, 1),
        times(r?.cpu),
        fixed(v.lambda.billedMsPerBatch, 1),
        usd(v.lambda.usdPerMillionDeliveries),
        times(r?.usd),
        usd(v.lambda.lambdaUsdPerMillionDeliveries),
        fixed(v.throttledMsPerBatch, 1),
        fixed(f.requestsPerDelivery, 2),
        patternsCell(f.requestPatterns),
        `${effectsCell(v)}${v.notExactlyOnce === undefined ? '' : ' !!'}`,
      ];
    }),
  };
}

/** The cold start per size: on demand (init at full CPU) and provisioned (all under the quota), ours against Powertools. */
export function coldStartSizeTable(c: ColdStartFigures): Table {
  return {
    head: [
      'memory',
      'on demand: ours ms',
      'PT ms',
      'ours / PT',
      'provisioned: ours ms',
      'PT ms',
      'ours / PT',
      'on demand, ours: import + 1st batch',
      'PT: import + 1st batch',
      'provisioned, ours: import + 1st batch',
      'PT: import + 1st batch',
      'Node boot ms, ours / PT (provisioned)',
    ],
    rows: c.sizes.map((s) => {
      const split = (f: { importMs: number; firstBatchMs: number }) => `${fixed(f.importMs, 0)} + ${fixed(f.firstBatchMs, 0)}`;
      return [
        mb(s.memoryMb),
        fixed(s.onDemand.ours.initMs, 0),
        fixed(s.onDemand.powertools.initMs, 0),
        times(s.onDemand.initRatio),
        fixed(s.provisioned.ours.initMs, 0),
        fixed(s.provisioned.powertools.initMs, 0),
        times(s.provisioned.initRatio),
        split(s.onDemand.ours),
        split(s.onDemand.powertools),
        split(s.provisioned.ours),
        split(s.provisioned.powertools),
        `${fixed(s.provisioned.ours.bootMs, 0)} / ${fixed(s.provisioned.powertools.bootMs, 0)}`,
      ];
    }),
  };
}

// ---- Lambda Managed Instances -------------------------------------------------

export const lmiLabel = (c: Pick<LmiConfigResult, 'vcpus' | 'inFlight'>) => `${c.vcpus} vCPU × ${c.inFlight} in flight`;

/** A cell of the LMI matrix: records per vCPU-s, p99, CPU per record and $ over the compared row's; Powertools' rows their figures. */
export function lmiCell(v: LmiVariantResult | undefined): string {
  if (v === undefined) return '';
  const r = v.ratios;
  if (r === null) {
    const f = v.figures;
    return `${fixed(f.recordsPerVcpuSecond, 0)}/vCPU-s · p99 ${fixed(f.p99Ms, 0)} ms · CPU ${percent(f.cpuUtilization, 0)} · ${usd(f.usdPerMillionDeliveries)}`;
  }
  return [r.recordsPerVcpuSecond, r.p99, r.cpuPerRecord, r.usd].map(times).join(' · ');
}

export function lmiVersusTable(configs: readonly LmiConfigResult[]): Table {
  return {
    head: ['variant (vs Powertools: records per vCPU-s · p99 · CPU per record · $)', ...configs.map(lmiLabel)],
    rows: [
      ...variantOrder(configs).map(({ id, title }) => [title, ...configs.map((c) => lmiCell(c.variants.find((v) => v.id === id)))]),
      ...defaultRequestsRow(configs),
    ],
  };
}

/** One configuration in full. */
export function lmiConfigTable(config: LmiConfigResult): Table {
  return {
    head: [
      'variant',
      'records/vCPU-s',
      'vs PT',
      'records/CPU-s',
      'CPU used',
      'p50 ms',
      'p99 ms',
      'p99 vs PT',
      'redelivered/delivery',
      'req/delivery',
      'requests (log line)',
      '$ / M deliveries',
      'of which instance $',
      '$ vs PT',
      'throttled ms/s',
      'effects/unique',
    ],
    rows: config.variants.map((v) => {
      const f = v.figures;
      const r = v.ratios;
      return [
        v.title,
        fixed(f.recordsPerVcpuSecond, 0),
        times(r?.recordsPerVcpuSecond),
        fixed(f.recordsPerCpuSecond, 0),
        percent(f.cpuUtilization, 0),
        fixed(f.p50Ms, 1),
        fixed(f.p99Ms, 1),
        times(r?.p99),
        fixed(f.redeliveriesPerDelivery, 3),
        fixed(f.requestsPerDelivery, 2),
        patternsCell(f.requestPatterns),
        usd(f.usdPerMillionDeliveries),
        usd(f.instanceUsdPerMillionDeliveries),
        times(r?.usd),
        fixed(f.throttledMsPerSecond, 0),
        `${effectsCell(v)}${v.notExactlyOnce === undefined ? '' : ' !!'}${f.unacknowledged > 0 ? ` (${f.unacknowledged} given up)` : ''}`,
      ];
    }),
  };
}

// ---- cost per use case -----------------------------------------------------------

/** The use cases the cost table compares: ours against the Powertools set-up that does the same. */
export const USE_CASES = [
  { useCase: 'claim record (the default)', ours: 'ours-default', theirs: 'powertools', theirsWords: 'Powertools' },
  { useCase: 'transaction', ours: 'ours-transaction', theirs: 'powertools', theirsWords: 'Powertools + the same plain write' },
  { useCase: 'state machine', ours: 'ours-state', theirs: 'powertools-order', theirsWords: 'Powertools + an update' },
] as const;

/** The LMI configurations the cost table shows: per vCPU count, the one with the most in flight (nearest the default concurrency). */
export function costConfigs(configs: readonly LmiConfigResult[]): LmiConfigResult[] {
  const best = new Map<number, LmiConfigResult>();
  for (const c of configs) if ((best.get(c.vcpus)?.inFlight ?? -1) < c.inFlight) best.set(c.vcpus, c);
  return [...best.values()].sort((a, b) => a.vcpus - b.vcpus);
}

/** $ per million deliveries per use case, ours against Powertools, at every size and on LMI. */
export function costTable(report: Pick<LambdaReport, 'sizes' | 'lmi'>): Table {
  const lmi = costConfigs(report.lmi);
  const cell = (ours: number | undefined, theirs: number | undefined) =>
    ours === undefined || theirs === undefined ? '-' : `${usd(ours, 2)} vs ${usd(theirs, 2)} (${times(ours / theirs)})`;
  return {
    head: ['use case: ours vs', ...report.sizes.map((s) => mb(s.memoryMb)), ...lmi.map((c) => `LMI, ${lmiLabel(c)}`)],
    rows: USE_CASES.map((u) => [
      `${u.useCase}: vs ${u.theirsWords}`,
      ...report.sizes.map((s) => {
        const $ = (id: string) => s.variants.find((v) => v.id === id)?.lambda.usdPerMillionDeliveries;
        return cell($(u.ours), $(u.theirs));
      }),
      ...lmi.map((c) => {
        const $ = (id: string) => c.variants.find((v) => v.id === id)?.figures.usdPerMillionDeliveries;
        return cell($(u.ours), $(u.theirs));
      }),
    ]),
  };
}

// ---- the run -------------------------------------------------------------------

/** The variants, sizes and configurations that were not exactly once, one line each. */
export function lambdaProblems(sizes: readonly SizeResult[], lmi: readonly LmiConfigResult[]): string[] {
  return [
    ...sizes.flatMap((s) =>
      s.variants.filter((v) => v.notExactlyOnce !== undefined).map((v) => `${v.title} at ${mb(s.memoryMb)}: ${v.notExactlyOnce}`),
    ),
    ...lmi.flatMap((c) =>
      c.variants.filter((v) => v.notExactlyOnce !== undefined).map((v) => `${v.title} on LMI ${lmiLabel(c)}: ${v.notExactlyOnce}`),
    ),
  ];
}

/** When the machine let an environment run on fewer cores than its vCPUs: the quota could not be reached. */
export function coreWarnings(lmi: readonly LmiConfigResult[]): string[] {
  return lmi
    .filter((c) => c.coresAvailable < c.vcpus)
    .map(
      (c) =>
        `LMI ${lmiLabel(c)}: the environment could run on ${c.coresAvailable} core${c.coresAvailable === 1 ? '' : 's'} only (the machine's, DynamoDB Local pinned apart), fewer than its ${c.vcpus} vCPUs: its figures are those of ${c.coresAvailable}`,
    );
}
