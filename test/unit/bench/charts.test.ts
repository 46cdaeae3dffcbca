import { describe, expect, it } from 'vitest';
import {
  lmiChartSpec,
  lmiPoints,
  MIN_FONT_PX,
  PAGE_WIDTH_PX,
  powerChartSpec,
  ratioChartSpec,
  ratioPoints,
  ratioTicks,
  renderSvg,
  shortName,
} from '../../../bench/lambda/chart.js';
import type { LambdaReport, LmiConfigResult, SizeResult, SizeVariantResult } from '../../../bench/results.js';

const TITLES: Record<string, string> = {
  baseline: 'no idempotency',
  powertools: 'Powertools',
  'ours-default': 'ours, default',
  'ours-default-copy': 'ours, default + event copy',
  'ours-claim': 'ours, claim()',
  'ours-claim-pipelined': 'ours, claim, pipelined',
  'ours-transaction': 'ours, transaction',
  'powertools-cache': 'Powertools, local cache',
  'ours-claim-cache': 'ours, claim, cache',
  'powertools-order': 'Powertools, order update',
  'ours-state': 'ours, state machine',
};

/** Every variant of a full run at one size: ours at `ratio` (plus a step per variant) of Powertools. */
function size(memoryMb: number, ratio: number): SizeResult {
  const variants = Object.entries(TITLES).map(([id, title], i) => {
    const pt = id.startsWith('powertools');
    return {
      id,
      title,
      figures: { p50Ms: 200 - i, recordsPerSecond: 100 },
      lambda: { usdPerMillionDeliveries: 1.5 + i / 10 },
      ratios: pt ? null : { recordsPerSecond: ratio + i / 10 },
    } as unknown as SizeVariantResult;
  });
  return { memoryMb, cpuShare: 1, quotaUs: 0, periodUs: 100_000, nodeFlags: [], durationS: 1, variants };
}

function config(vcpus: number, inFlight: number, ratio: number): LmiConfigResult {
  const variants = Object.entries(TITLES).map(([id, title]) => ({
    id,
    title,
    ratios: id.startsWith('powertools') ? null : { recordsPerVcpuSecond: ratio },
  }));
  return { vcpus, inFlight, variants } as unknown as LmiConfigResult;
}

const report = {
  sizes: [size(1769, 0.8), size(128, 2.5), size(256, 1.5), size(512, 1.1), size(1024, 0.9)],
  lmi: [config(2, 8, 3), config(1, 8, 2), config(1, 64, 1.2), config(2, 64, 1.6)],
  workload: { events: 2000, duplicateRate: 0.25, batchSize: 10, aws: true },
  date: '2026-12-06T00:00:00.000Z',
} as unknown as LambdaReport;

describe('the chart against Powertools per memory size', () => {
  it("has one panel per strategy (Powertools' own rows are the reference, not a panel), the sizes ascending", () => {
    const points = ratioPoints(report);
    const panels = [...new Set(points.map((p) => p.panel))];
    expect(panels).toEqual([
      'no idempotency',
      'default',
      'default + event | copy',
      'claim()',
      'claim, pipelined',
      'transaction',
      'claim, cache',
      'state machine',
    ]);
    expect(points.filter((p) => p.id === 'ours-default').map((p) => [p.memoryMb, p.ratio])).toEqual([
      [128, 2.7],
      [256, 1.7],
      [512, 1.3],
      [1024, 1.1],
      [1769, 1.0],
    ]);
  });

  it('names a panel without "ours, " and cuts a long name into lines that fit the panel', () => {
    expect(shortName('ours, transaction')).toBe('transaction');
    expect(shortName('ours, default + event copy')).toBe('default + event | copy');
    expect(shortName('no idempotency')).toBe('no idempotency');
  });

  it('puts the ratios on a log scale of powers of two that covers them and the 1.0x line', () => {
    expect(ratioTicks([0.8, 1.3])).toEqual([0.5, 1, 2]);
    expect(ratioTicks([0.3, 6.3])).toEqual([0.25, 0.5, 1, 2, 4, 8]);
  });

  it('draws a dashed rule at 1.0x under a line per panel, and a panel per strategy', () => {
    const spec = ratioChartSpec(report) as unknown as {
      facet: { field: string; sort: string[] };
      spec: { layer: Array<{ mark: { type: string }; encoding: { y: { datum?: number; field?: string } } }> };
    };
    expect(spec.facet.field).toBe('panel');
    expect(spec.facet.sort).toHaveLength(8);
    expect(spec.spec.layer.map((l) => l.mark.type)).toEqual(['rule', 'line']);
    expect(spec.spec.layer[0]?.encoding.y.datum).toBe(1);
    expect(spec.spec.layer[1]?.encoding.y.field).toBe('ratio');
  });
});

describe('the Lambda Managed Instances chart', () => {
  it('has a line per vCPU count over the numbers in flight, in each strategy panel', () => {
    const points = lmiPoints(report.lmi).filter((p) => p.id === 'ours-state');
    expect(points.map((p) => [p.vcpus, p.inFlight, p.ratio])).toEqual([
      ['1 vCPU', 8, 2],
      ['1 vCPU', 64, 1.2],
      ['2 vCPUs', 8, 3],
      ['2 vCPUs', 64, 1.6],
    ]);
  });
});

/** The SVG's width and the font sizes of its text, px. */
function measure(svg: string): { width: number; fonts: number[] } {
  const width = Number(/<svg[^>]* width="([\d.]+)"/.exec(svg)?.[1]);
  const fonts = [...svg.matchAll(/font-size="([\d.]+)px"/g)].map((m) => Number(m[1]));
  return { width, fonts };
}

describe('every chart reads at the docs page width', () => {
  it.each([
    ['vs Powertools per size', () => ratioChartSpec(report)],
    ['duration and cost per size', () => powerChartSpec(report)],
    ['Lambda Managed Instances', () => lmiChartSpec(report)],
  ])('%s: drawn no wider than the page, so its text renders at its own size, 12 px and up', async (_name, spec) => {
    const { width, fonts } = measure(await renderSvg(spec()));
    expect(width).toBeGreaterThan(300);
    expect(width).toBeLessThanOrEqual(PAGE_WIDTH_PX);
    expect(fonts.length).toBeGreaterThan(20);
    expect(Math.min(...fonts)).toBeGreaterThanOrEqual(MIN_FONT_PX);
  });
});
