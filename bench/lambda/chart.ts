/**
 * The Lambda-shaped runs' charts, made to be read at the docs page's width
 * (about 624 px: the SVGs are drawn that wide or narrower, so their text
 * renders at its own size, 11 px and up):
 *
 * - **vs Powertools per memory size** (`benchmarks-power.svg`): one small
 *   panel per strategy, its records/s over Powertools' at each size, a line
 *   at 1.0x: the question a user asks ("is it faster than Powertools at my
 *   size?") answered per strategy, no lines crossing.
 * - **duration and cost per memory size** (`benchmarks-power-raw.svg`): as
 *   the Lambda Power Tuning tool draws one, batch p50 and $ per million
 *   deliveries against memory, one line per variant (Powertools dashed).
 * - **Lambda Managed Instances** (`benchmarks-lmi.svg`): one panel per
 *   strategy, records per vCPU-second over Powertools' at each number in
 *   flight, a line per vCPU count, a line at 1.0x.
 *
 * Vega-Lite specs built from the results (pure: the unit test reads their
 * data), rendered to SVG in Node by Vega (no browser, no canvas).
 */
import type { TopLevelSpec } from 'vega-lite';
import type { LambdaReport, LmiConfigResult, SizeResult } from '../results.js';

/** The smallest text in the charts, px (the docs check measures it as rendered). */
export const MIN_FONT_PX = 12;
/** The docs page's content width, px: no chart is drawn wider. */
export const PAGE_WIDTH_PX = 624;

const FONT = { font: 'sans-serif' } as const;
const CONFIG = {
  ...FONT,
  view: { stroke: '#ddd' },
  axis: { labelFontSize: MIN_FONT_PX, titleFontSize: MIN_FONT_PX, titleFontWeight: 'normal' },
  header: { labelFontSize: MIN_FONT_PX, titleFontSize: MIN_FONT_PX },
  legend: { labelFontSize: MIN_FONT_PX, titleFontSize: MIN_FONT_PX },
  title: { fontSize: 15, subtitleFontSize: MIN_FONT_PX, anchor: 'start', offset: 12 },
} as const;

/** Characters of a panel's title that fit one line of a panel. */
const PANEL_TITLE_LINE = 16;

/**
 * A variant's name over its panel: its title without "ours, " (every panel
 * is ours against Powertools), cut into lines (" | " between them) that fit
 * the panel's width.
 */
export function shortName(title: string): string {
  const lines: string[] = [];
  for (const word of title.replace(/^ours, /, '').split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && `${last} ${word}`.length <= PANEL_TITLE_LINE) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines.join(' | ');
}

function library(id: string): 'Powertools' | 'effectively-once' | 'no idempotency' {
  if (id.startsWith('powertools')) return 'Powertools';
  return id === 'baseline' ? 'no idempotency' : 'effectively-once';
}

const dupWords = (rate: number) => `${Number((rate * 100).toFixed(2))} % duplicates`;

/** Variants in the order of the first size (or configuration) that has them. */
function order(groups: ReadonlyArray<{ variants: ReadonlyArray<{ id: string }> }>): string[] {
  const seen = new Set<string>();
  for (const g of groups) for (const v of g.variants) seen.add(v.id);
  return [...seen];
}

// ---- vs Powertools per memory size -------------------------------------------

/** One point of a ratio panel: a strategy at a size. */
export interface RatioPoint {
  readonly panel: string;
  readonly id: string;
  readonly memoryMb: number;
  readonly ratio: number;
  readonly label: string;
}

/** Every non-Powertools variant's records/s over Powertools' at each size, sizes ascending. */
export function ratioPoints(report: Pick<LambdaReport, 'sizes'>): RatioPoint[] {
  const sizes = [...report.sizes].sort((a, b) => a.memoryMb - b.memoryMb);
  const points: RatioPoint[] = [];
  for (const id of order(sizes))
    for (const size of sizes) {
      const v = size.variants.find((r) => r.id === id);
      const ratio = v?.ratios?.recordsPerSecond;
      if (v === undefined || ratio === null || ratio === undefined || !Number.isFinite(ratio)) continue;
      points.push({ panel: shortName(v.title), id, memoryMb: size.memoryMb, ratio, label: `${ratio.toFixed(2)}x` });
    }
  return points;
}

/** Log-scale ticks of a ratio axis that cover `values` (powers of two around 1). */
export function ratioTicks(values: readonly number[]): number[] {
  const finite = values.filter((v) => Number.isFinite(v) && v > 0);
  const low = Math.min(0.5, ...finite);
  const high = Math.max(2, ...finite);
  const ticks: number[] = [];
  for (let t = 2 ** Math.floor(Math.log2(low)); t <= 2 ** Math.ceil(Math.log2(high)); t *= 2) ticks.push(t);
  return ticks;
}

const PANEL = { width: 160, height: 100, columns: 3 } as const;

/** A faceted small-multiples spec: one panel per strategy, a 1.0x rule, ratios on a shared log scale. */
function smallMultiples(options: {
  readonly title: string;
  readonly subtitle: readonly string[];
  readonly values: readonly object[];
  readonly panels: readonly string[];
  readonly x: { readonly field: string; readonly title: string; readonly sort: readonly number[] };
  readonly yTitle: string;
  readonly ratios: readonly number[];
  readonly color?: { readonly field: string; readonly title: string; readonly sort: readonly string[] };
}): TopLevelSpec {
  const ticks = ratioTicks(options.ratios);
  const y = {
    field: 'ratio',
    type: 'quantitative' as const,
    title: options.yTitle,
    scale: { type: 'log' as const, domain: [ticks[0], ticks.at(-1)], nice: false },
    axis: { values: ticks, labelExpr: "datum.value + 'x'", grid: true },
  };
  const x = { field: options.x.field, type: 'ordinal' as const, sort: options.x.sort, title: options.x.title, axis: { labelAngle: 0 } };
  const color =
    options.color === undefined
      ? { value: '#1f77b4' }
      : {
          field: options.color.field,
          type: 'nominal' as const,
          sort: options.color.sort,
          title: options.color.title,
          legend: { orient: 'top' as const, direction: 'horizontal' as const },
        };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: options.title, subtitle: [...options.subtitle] },
    data: { values: options.values as Record<string, unknown>[] },
    facet: {
      field: 'panel',
      type: 'nominal',
      sort: [...options.panels],
      title: null,
      header: { labelLimit: PANEL.width, labelExpr: "split(datum.value, ' | ')" },
    },
    columns: PANEL.columns,
    spacing: { row: 14, column: 10 },
    spec: {
      width: PANEL.width,
      height: PANEL.height,
      layer: [
        { mark: { type: 'rule', color: '#555', strokeDash: [4, 3] }, encoding: { y: { datum: 1 } } },
        { mark: { type: 'line', point: true, strokeWidth: 2 }, encoding: { x, y, color } },
      ],
    },
    config: CONFIG,
  } as TopLevelSpec;
}

/** The chart of the ratios to Powertools per memory size. */
export function ratioChartSpec(report: Pick<LambdaReport, 'sizes' | 'workload' | 'date'>): TopLevelSpec {
  const points = ratioPoints(report);
  const sizes = [...new Set(points.map((p) => p.memoryMb))].sort((a, b) => a - b);
  const w = report.workload;
  return smallMultiples({
    title: 'records/s vs Powertools, per memory size',
    subtitle: [
      'above the dashed line (1.0x): faster than Powertools',
      `${w.events} events, ${dupWords(w.duplicateRate)}; ${report.date.slice(0, 10)}`,
      `CPU: the size's share of a vCPU; ${w.aws ? 'AWS latency model' : 'DynamoDB Local'}`,
      "cache vs PT's cache; state machine vs PT + update",
    ],
    values: points,
    panels: [...new Set(points.map((p) => p.panel))],
    x: { field: 'memoryMb', title: 'memory (MB)', sort: sizes },
    yTitle: 'vs Powertools',
    ratios: points.map((p) => p.ratio),
  });
}

// ---- duration and cost per memory size ----------------------------------------

/** One point of a line: a variant at a size. */
export interface ChartPoint {
  readonly variant: string;
  readonly id: string;
  /** Powertools' rows are drawn dashed. */
  readonly library: 'Powertools' | 'effectively-once' | 'no idempotency';
  readonly memoryMb: number;
  readonly p50Ms: number;
  readonly usdPerMillion: number;
  readonly recordsPerSecond: number;
}

/** The raw chart's data: one point per variant and size, sizes ascending, variants in the report's order. */
export function chartPoints(report: { readonly sizes: readonly SizeResult[] }): ChartPoint[] {
  const sizes = [...report.sizes].sort((a, b) => a.memoryMb - b.memoryMb);
  const points: ChartPoint[] = [];
  for (const id of order(sizes))
    for (const size of sizes) {
      const v = size.variants.find((r) => r.id === id);
      if (v === undefined || !Number.isFinite(v.figures.p50Ms) || !Number.isFinite(v.lambda.usdPerMillionDeliveries)) continue;
      points.push({
        variant: v.title,
        id: v.id,
        library: library(v.id),
        memoryMb: size.memoryMb,
        p50Ms: v.figures.p50Ms,
        usdPerMillion: v.lambda.usdPerMillionDeliveries,
        recordsPerSecond: v.figures.recordsPerSecond,
      });
    }
  return points;
}

/** The power-tuning spec: duration above cost, memory on x (one tick per size), one colour per variant, Powertools dashed. */
export function powerChartSpec(report: Pick<LambdaReport, 'sizes' | 'workload' | 'date'>): TopLevelSpec {
  const points = chartPoints(report);
  const sizes = [...new Set(points.map((p) => p.memoryMb))].sort((a, b) => a - b);
  const variants = [...new Set(points.map((p) => p.variant))];
  const x = { field: 'memoryMb', type: 'ordinal' as const, sort: sizes, title: 'memory (MB)', axis: { labelAngle: 0 } };
  const color = {
    field: 'variant',
    type: 'nominal' as const,
    sort: variants,
    title: null,
    legend: { orient: 'bottom' as const, columns: 2, labelLimit: 280, symbolType: 'stroke', symbolStrokeWidth: 3 },
  };
  const strokeDash = {
    field: 'library',
    type: 'nominal' as const,
    scale: {
      domain: ['effectively-once', 'Powertools', 'no idempotency'],
      range: [
        [1, 0],
        [6, 3],
        [2, 2],
      ],
    },
    legend: null,
  };
  const panel = (field: 'p50Ms' | 'usdPerMillion', title: string, scale: Record<string, unknown>, format: string) => ({
    width: 500,
    height: 200,
    mark: { type: 'line' as const, point: true, strokeWidth: 2 },
    encoding: { x, y: { field, type: 'quantitative' as const, title, scale, axis: { format } }, color, strokeDash },
  });
  const w = report.workload;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'batch duration and cost per memory size',
      subtitle: [
        `${w.events} events, ${dupWords(w.duplicateRate)}; ${w.aws ? 'AWS latency model' : 'DynamoDB Local'}; ${report.date.slice(0, 10)}`,
        'solid: effectively-once, dashed: Powertools, dotted: none',
      ],
    },
    data: { values: points as unknown as Record<string, unknown>[] },
    vconcat: [
      panel('p50Ms', 'batch p50 (ms, log scale)', { type: 'log' }, ',.0f'),
      panel('usdPerMillion', '$ per million deliveries', { zero: false }, '$.2f'),
    ],
    config: CONFIG,
  } as TopLevelSpec;
}

// ---- Lambda Managed Instances ---------------------------------------------------

export interface LmiPoint {
  readonly panel: string;
  readonly id: string;
  readonly vcpus: string;
  readonly inFlight: number;
  readonly ratio: number;
}

const vcpuWords = (n: number) => `${n} vCPU${n === 1 ? '' : 's'}`;

/** Every non-Powertools variant's records per vCPU-second over Powertools' in each configuration. */
export function lmiPoints(configs: readonly LmiConfigResult[]): LmiPoint[] {
  const sorted = [...configs].sort((a, b) => a.vcpus - b.vcpus || a.inFlight - b.inFlight);
  const points: LmiPoint[] = [];
  for (const id of order(sorted))
    for (const c of sorted) {
      const v = c.variants.find((r) => r.id === id);
      const ratio = v?.ratios?.recordsPerVcpuSecond;
      if (v === undefined || ratio === null || ratio === undefined || !Number.isFinite(ratio)) continue;
      points.push({ panel: shortName(v.title), id, vcpus: vcpuWords(c.vcpus), inFlight: c.inFlight, ratio });
    }
  return points;
}

export function lmiChartSpec(report: Pick<LambdaReport, 'lmi' | 'workload' | 'date'>): TopLevelSpec {
  const points = lmiPoints(report.lmi);
  const w = report.workload;
  return smallMultiples({
    title: 'Managed Instances: records per vCPU-s vs Powertools',
    subtitle: [
      'above the dashed line (1.0x): more deliveries per vCPU billed',
      `${w.events} events, ${dupWords(w.duplicateRate)}; ${report.date.slice(0, 10)}`,
      `a worker thread per vCPU; ${w.aws ? 'AWS latency model' : 'DynamoDB Local'}`,
      "cache vs PT's cache; state machine vs PT + update",
    ],
    values: points,
    panels: [...new Set(points.map((p) => p.panel))],
    x: { field: 'inFlight', title: 'invocations in flight', sort: [...new Set(points.map((p) => p.inFlight))].sort((a, b) => a - b) },
    yTitle: 'vs Powertools',
    ratios: points.map((p) => p.ratio),
    color: { field: 'vcpus', title: 'environment', sort: [...new Set(points.map((p) => p.vcpus))] },
  });
}

/** A chart as an SVG document. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const vega = await import('vega');
  const vl = await import('vega-lite');
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
