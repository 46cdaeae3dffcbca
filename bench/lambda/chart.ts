/**
 * The power-tuning picture of a sweep, as the AWS Lambda Power Tuning tool
 * draws one: duration and cost against memory size, here one line per
 * variant. A Vega-Lite spec built from the results (pure: the unit test reads
 * its data) and rendered to SVG in Node by Vega (no browser, no canvas:
 * Vega's SVG renderer estimates text widths).
 */
import type { TopLevelSpec } from 'vega-lite';
import type { SweepReport } from './results.js';

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

function library(id: string): ChartPoint['library'] {
  if (id.startsWith('powertools')) return 'Powertools';
  return id === 'baseline' ? 'no idempotency' : 'effectively-once';
}

/** The chart's data: one point per variant and size, sizes ascending, variants in the report's order. */
export function chartPoints(report: Pick<SweepReport, 'sizes'>): ChartPoint[] {
  const sizes = [...report.sizes].sort((a, b) => a.memoryMb - b.memoryMb);
  const order = sizes[0]?.variants.map((v) => v.id) ?? [];
  const points: ChartPoint[] = [];
  for (const id of order)
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

const WIDTH = 380;
const HEIGHT = 300;

/** The Vega-Lite spec: two panels side by side sharing the legend, memory on x (one tick per size measured). */
export function powerChartSpec(report: Pick<SweepReport, 'sizes' | 'workload' | 'date'>): TopLevelSpec {
  const points = chartPoints(report);
  const sizes = [...new Set(points.map((p) => p.memoryMb))].sort((a, b) => a - b);
  const variants = [...new Set(points.map((p) => p.variant))];
  const dup = `${Number((report.workload.duplicateRate * 100).toFixed(2))} % duplicates`;
  const x = {
    field: 'memoryMb',
    type: 'ordinal' as const,
    sort: sizes,
    title: 'memory (MB)',
    axis: { labelAngle: 0 },
  };
  const color = {
    field: 'variant',
    type: 'nominal' as const,
    sort: variants,
    title: 'variant',
    legend: { orient: 'bottom' as const, columns: 4, labelLimit: 260, symbolType: 'stroke', symbolStrokeWidth: 3 },
  };
  const strokeDash = {
    field: 'library',
    type: 'nominal' as const,
    title: 'library',
    scale: {
      domain: ['effectively-once', 'Powertools', 'no idempotency'],
      range: [
        [1, 0],
        [6, 3],
        [2, 2],
      ],
    },
    // Said in the subtitle: a second legend for three line styles would take a row of its own.
    legend: null,
  };
  const panel = (field: 'p50Ms' | 'usdPerMillion', title: string, scale: Record<string, unknown>, format: string) => ({
    width: WIDTH,
    height: HEIGHT,
    mark: { type: 'line' as const, point: true, strokeWidth: 2 },
    encoding: {
      x,
      y: { field, type: 'quantitative' as const, title, scale, axis: { format } },
      color,
      strokeDash,
      tooltip: [
        { field: 'variant', type: 'nominal' as const },
        { field: 'memoryMb', type: 'ordinal' as const },
        { field, type: 'quantitative' as const, format },
      ],
    },
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `Power tuning: ${report.workload.events} events, ${dup}, batches of ${report.workload.batchSize}`,
      subtitle: [
        `each variant in its own process at the size's share of a vCPU (cgroup CFS quota); ${report.workload.aws ? 'AWS latency model' : 'DynamoDB Local'}; ${report.date.slice(0, 10)}`,
        'solid: effectively-once, dashed: Powertools, dotted: no idempotency',
      ],
      anchor: 'start',
      offset: 16,
    },
    data: { values: points as unknown as Record<string, unknown>[] },
    hconcat: [
      panel('p50Ms', 'batch duration p50 (ms, log scale)', { type: 'log' }, ',.0f'),
      panel('usdPerMillion', '$ per million deliveries (Lambda + DynamoDB)', { zero: false }, '$.2f'),
    ],
    config: { font: 'sans-serif', view: { stroke: '#ddd' } },
  } as TopLevelSpec;
}

/** The chart as an SVG document. */
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
