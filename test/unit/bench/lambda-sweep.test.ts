import { describe, expect, it } from 'vitest';
import { chartPoints, powerChartSpec } from '../../../bench/lambda/chart.js';
import { chartPath, lambdaSectionKey, renderPowerSection } from '../../../bench/lambda/docs.js';
import { exactlyOnceProblem, lambdaFigures, type SizeLaneOutcome, sizeResults } from '../../../bench/lambda/figures.js';
import { duration, etaMs, predictRoundMs } from '../../../bench/lambda/progress.js';
import { DEFAULT_REQUESTS_ROW, sizeTable, versusTable } from '../../../bench/lambda/report.js';
import { checkLambdaTargets } from '../../../bench/lambda/targets.js';
import type { LambdaReport, SizeResult } from '../../../bench/results.js';
import { mergeSection, sectionRank } from '../../../bench/sections.js';
import type { SampleLike } from '../../../bench/stats.js';
import { fixtureMachine, fixtureVersions } from '../../support/bench-report.js';

function sample(ms: number, over: Partial<SampleLike> = {}): SampleLike {
  return {
    ms,
    cpuMs: ms / 4,
    serverCpuMs: 1,
    tally: { requests: { PutItemCommand: 10 }, units: 0, requestMs: 10, wru: 15, rru: 2 },
    records: 10,
    fresh: 8,
    duplicates: 2,
    failures: 0,
    firstEffectMs: 1,
    slice: 0,
    ...over,
  };
}

const effects = { applied: 16, unique: 16, points: 100, expectedPoints: 100 };

function lane(id: string, msPerBatch: number, over: Partial<SizeLaneOutcome> = {}): SizeLaneOutcome {
  return {
    id,
    title: id === 'powertools' ? 'Powertools' : `ours ${id}`,
    setup: '',
    comparedWith: id === 'powertools' ? undefined : 'powertools',
    idempotent: true,
    // Two slices of one batch each: the ratio is the median of the slice ratios.
    samples: [sample(msPerBatch, { slice: 0 }), sample(msPerBatch, { slice: 1 })],
    effects,
    error: undefined,
    throttledMs: 40,
    batchesRun: 4,
    ...over,
  };
}

describe('lambdaFigures: what Lambda bills at a size', () => {
  it('rounds each batch up to 1 ms and prices GB-s at the size, the requests and the DynamoDB units', () => {
    const f = lambdaFigures([sample(99.2), sample(100)], 512);
    expect(f.billedMsPerBatch).toBe(100);
    expect(f.wruPerDelivery).toBe(1.5);
    expect(f.rruPerDelivery).toBe(0.2);
    // Lambda: 0.5 GB × 0.2 s × $0.0000166667 + 2 requests × $0.20 / M, over 20 deliveries, per million.
    expect(f.lambdaUsdPerMillionDeliveries).toBeCloseTo(0.10333, 4);
    // + 30 WRU × $0.625 / M + 4 RRU × $0.125 / M, over 20 deliveries, per million.
    expect(f.usdPerMillionDeliveries).toBeCloseTo(0.10333 + 0.9625, 4);
    // The same batches at 128 MB cost a quarter of the GB-s.
    // GB-s 0.08333 at 512 MB, a quarter of it at 128 MB; the requests (0.02) stay.
    expect(lambdaFigures([sample(99.2), sample(100)], 128).lambdaUsdPerMillionDeliveries).toBeCloseTo(0.08333 / 4 + 0.02, 4);
  });
});

describe('exactlyOnceProblem', () => {
  it('passes an idempotent variant whose effects and points match, and names each way it can fail', () => {
    expect(exactlyOnceProblem(true, effects, { failures: 0 }, undefined)).toBeUndefined();
    expect(exactlyOnceProblem(true, { ...effects, applied: 17 }, { failures: 0 }, undefined)).toBe(
      '17 effects applied for 16 unique events',
    );
    expect(exactlyOnceProblem(true, { ...effects, points: 90 }, { failures: 0 }, undefined)).toBe('90 points instead of 100');
    expect(exactlyOnceProblem(true, effects, { failures: 3 }, 'Error: boom')).toBe('3 records reported failed; Error: boom');
    // The baseline counts duplicates again by design: only failures count against it.
    expect(exactlyOnceProblem(false, { ...effects, applied: 20 }, { failures: 0 }, undefined)).toBeUndefined();
  });
});

describe('sizeResults', () => {
  it('gives each variant its ratios to the Powertools row it is compared with, and none to Powertools itself', () => {
    const [pt, ours] = sizeResults([lane('powertools', 200), lane('ours-default', 100)], 256);
    expect(pt?.ratios).toBeNull();
    expect(ours?.ratios?.recordsPerSecond).toBeCloseTo(2, 9);
    expect(ours?.ratios?.p50).toBeCloseTo(0.5, 9);
    expect(ours?.ratios?.p99).toBeCloseTo(0.5, 9);
    expect(ours?.ratios?.cpu).toBeCloseTo(0.5, 9);
    expect(ours?.ratios?.billedMs).toBeCloseTo(0.5, 9);
    expect(ours?.ratios?.usd).toBeLessThan(1);
    expect(ours?.throttledMsPerBatch).toBe(10);
    expect(ours?.notExactlyOnce).toBeUndefined();
  });
});

/** A size of a synthetic sweep: Powertools at `ptMs` per batch, ours at half (with a copying middleware: 0.8x the speed), the state machine at a fifth. */
function size(memoryMb: number, ptMs: number): SizeResult {
  const lanes = [
    lane('powertools', ptMs),
    lane('ours-default', ptMs / 2),
    lane('ours-default-copy', ptMs / 0.8),
    lane('ours-transaction', ptMs / 2.2),
    { ...lane('powertools-order', ptMs), title: 'Powertools, order update' },
    { ...lane('ours-state', ptMs / 5), comparedWith: 'powertools-order' },
  ];
  return {
    memoryMb,
    cpuShare: Math.min(1, memoryMb / 1769),
    quotaUs: 0,
    periodUs: 100_000,
    nodeFlags: [],
    durationS: 1,
    variants: sizeResults(lanes, memoryMb),
  };
}

function sweep(sizes: SizeResult[], duplicateRate = 0.25): LambdaReport {
  return {
    kind: 'lambda',
    date: '2026-12-05T00:00:00.000Z',
    durationS: 900,
    command: 'npm run bench -- --aws --memory 256,1769',
    machine: fixtureMachine(1.5, 2.5),
    versions: fixtureVersions,
    workload: {
      events: 16,
      duplicates: 4,
      deliveries: 20,
      batches: 2,
      batchSize: 10,
      seed: 1,
      duplicateRate,
      warmupBatches: 2,
      slices: 5,
      latencyMs: 0,
      unitsCounted: false,
      aws: true,
    },
    schedule: 'sizes one after another',
    cgroupRoot: '/sys/fs/cgroup/cpu',
    quotaChecks: [{ memoryMb: 256, expectedShare: 0.1447, wallMs: 1000, cpuMs: 140, measuredShare: 0.14 }],
    sizes,
    lmi: [],
    coldStart: undefined,
    targets: checkLambdaTargets(sizes, [], undefined),
    problems: [],
  };
}

describe('the power-tuning chart', () => {
  // Given out of order: the chart sorts the sizes.
  const report = sweep([size(1769, 40), size(256, 200)]);

  it('has one series per variant and one point per size, in ascending memory, with the duration and the cost', () => {
    const points = chartPoints(report);
    expect(points).toHaveLength(12);
    const byVariant = new Map<string, typeof points>();
    for (const p of points) byVariant.set(p.variant, [...(byVariant.get(p.variant) ?? []), p]);
    expect([...byVariant.keys()]).toEqual([
      'Powertools',
      'ours ours-default',
      'ours ours-default-copy',
      'ours ours-transaction',
      'Powertools, order update',
      'ours ours-state',
    ]);
    for (const series of byVariant.values()) expect(series.map((p) => p.memoryMb)).toEqual([256, 1769]);
    const pt256 = points.find((p) => p.id === 'powertools' && p.memoryMb === 256);
    const ours1769 = points.find((p) => p.id === 'ours-default' && p.memoryMb === 1769);
    expect(pt256?.p50Ms).toBe(200);
    expect(ours1769?.p50Ms).toBe(20);
    expect(pt256?.usdPerMillion).toBe(report.sizes[1]?.variants[0]?.lambda.usdPerMillionDeliveries);
    expect(pt256?.library).toBe('Powertools');
    expect(ours1769?.library).toBe('effectively-once');
  });

  it('builds a Vega-Lite spec of two panels (duration above cost) over the memory sizes, one colour per variant, Powertools dashed', () => {
    const spec = powerChartSpec(report) as unknown as {
      data: { values: unknown[] };
      vconcat: Array<{ mark: { type: string }; encoding: Record<string, { field: string; sort?: unknown; scale?: { domain?: unknown } }> }>;
    };
    expect(spec.data.values).toEqual(chartPoints(report));
    expect(spec.vconcat.map((p) => p.encoding['y']?.field)).toEqual(['p50Ms', 'usdPerMillion']);
    for (const panel of spec.vconcat) {
      expect(panel.mark.type).toBe('line');
      expect(panel.encoding['x']).toMatchObject({ field: 'memoryMb', sort: [256, 1769] });
      expect(panel.encoding['color']?.field).toBe('variant');
      expect(panel.encoding['strokeDash']).toMatchObject({ field: 'library' });
    }
  });

  it('leaves out a variant at a size where it has no figures (a run that failed)', () => {
    const broken = size(512, 100);
    const failed = broken.variants.map((v) => (v.id === 'ours-transaction' ? { ...v, figures: { ...v.figures, p50Ms: Number.NaN } } : v));
    const points = chartPoints({ sizes: [{ ...broken, variants: failed }] });
    expect(points.map((p) => p.id)).not.toContain('ours-transaction');
    expect(points).toHaveLength(5);
  });
});

describe('the sweep in the docs', () => {
  it('keys its sections by duplicate rate and puts the charts beside the Markdown file', () => {
    expect(lambdaSectionKey('power', sweep([]))).toBe('power');
    expect(lambdaSectionKey('power', sweep([], 0.01))).toBe('power-dup-0.01');
    expect(lambdaSectionKey('cost', sweep([], 0.01))).toBe('cost-dup-0.01');
    expect(chartPath('/r/docs/benchmarks.md', 'power-dup-0.01')).toBe('/r/docs/benchmarks-power-dup-0.01.svg');
  });

  it('writes the charts, the table against Powertools per size, the targets, and says whether every run was exactly once', () => {
    const report = sweep([size(256, 200), size(1769, 40)]);
    const text = renderPowerSection(report, { ratios: 'benchmarks-power.svg', raw: 'benchmarks-power-raw.svg' });
    expect(text.startsWith('<!-- bench:begin power -->')).toBe(true);
    expect(text).toContain('](benchmarks-power.svg)');
    expect(text).toContain('](benchmarks-power-raw.svg)');
    expect(text).toContain('| variant (vs Powertools: records/s · p99 · CPU · $) | 256 MB | 1,769 MB |');
    expect(text).toContain('| ours ours-default | 2.00x · 0.50x · 0.50x ·');
    expect(text).toContain('exactly once at every size');
    expect(text).toContain('1-minute load 1.50 at the start, 2.50 at the end');
    expect(text).toContain('256 MB: claim default ≥ 1.20x Powertools records/s | 2.00x | met');
    const failed = sweep([size(256, 200)]);
    const text2 = renderPowerSection(
      {
        ...failed,
        sizes: [
          { ...failed.sizes[0], variants: failed.sizes[0]?.variants.map((v) => ({ ...v, notExactlyOnce: 'boom' })) ?? [] } as SizeResult,
        ],
      },
      { ratios: 'x.svg', raw: 'y.svg' },
    );
    expect(text2).toContain('**Not exactly once:** Powertools at 256 MB: boom');
  });

  it("puts the sweep's sections first, then Lambda Managed Instances', the cost's, the AWS model's, then DynamoDB Local's", () => {
    expect([
      sectionRank('power'),
      sectionRank('power-dup-0.01'),
      sectionRank('lmi'),
      sectionRank('cost-dup-0.01'),
      sectionRank('aws'),
      sectionRank('aws-dup-0.01'),
      sectionRank('latency-0'),
      sectionRank('redis-latency-0'),
    ]).toEqual([0, 0, 1, 2, 3, 3, 4, 4]);
    const existing =
      '# B\n\n<!-- bench:begin aws -->A<!-- bench:end aws -->\n\n<!-- bench:begin latency-0 -->L<!-- bench:end latency-0 -->\n';
    const merged = mergeSection(existing, '<!-- bench:begin power -->P<!-- bench:end power -->', 'power');
    expect(merged.indexOf('bench:begin power')).toBeLessThan(merged.indexOf('bench:begin aws'));
    const again = mergeSection(merged, '<!-- bench:begin power -->Q<!-- bench:end power -->', 'power');
    expect(again).toContain('-->Q<!--');
    expect(again).not.toContain('-->P<!--');
  });

  it('says, under the table against Powertools, which requests the default chose at each size (its batch log lines)', () => {
    const logged = (memoryMb: number, ...requests: Array<'batched' | 'per-record'>): SizeResult => {
      const s = size(memoryMb, 100);
      const lanes = [
        lane('powertools', 100),
        lane('ours-default', 50, { samples: requests.map((r, i) => sample(50, { slice: i, requests: r })) }),
      ];
      return { ...s, variants: sizeResults(lanes, memoryMb) };
    };
    const table = versusTable(sweep([logged(256, 'batched', 'batched'), logged(1769, 'per-record', 'batched', 'per-record')]));
    expect(table.rows.at(-1)).toEqual([DEFAULT_REQUESTS_ROW, 'batched', 'batched 1, per-record 2']);
    const perSize = sizeTable(logged(512, 'per-record'));
    const column = perSize.head.indexOf('requests (log line)');
    expect(perSize.rows.map((r) => r[column])).toEqual(['-', 'per-record']);
    // Without the default in the run, no such row.
    expect(versusTable(sweep([{ ...size(256, 100), variants: sizeResults([lane('powertools', 100)], 256) }])).rows).toHaveLength(1);
  });

  it("gives Powertools' own rows their figures in the table against Powertools", () => {
    const table = versusTable(sweep([size(256, 200)]));
    expect(table.rows[0]?.[0]).toBe('Powertools');
    expect(table.rows[0]?.[1]).toMatch(/^50\/s · p99 200 ms · 50\.0 ms · \$/);
  });
});

describe('progress: time left', () => {
  it("stretches the CPU part of a round by the size's share and keeps the rest", () => {
    // At 1,769 MB (one vCPU): 100 ms per round of which 40 ms CPU; at 442 MB (a quarter) the CPU takes 160 ms.
    const seen = { memoryMb: 1769, rounds: 10, wallMs: 1000, cpuMs: 400 };
    expect(predictRoundMs(seen, 1769)).toBeCloseTo(100, 9);
    expect(predictRoundMs(seen, 442.25)).toBeCloseTo(60 + 160, 6);
    expect(predictRoundMs({ ...seen, rounds: 0 }, 1769)).toBeNaN();
  });

  it('adds the rest of this size and every later size', () => {
    const seen = { memoryMb: 1769, rounds: 10, wallMs: 1000, cpuMs: 400 };
    expect(etaMs({ sizes: [1769, 3538], sizeIndex: 0, roundsPerSize: 20, roundsDone: 10, seen })).toBeCloseTo(10 * 100 + 20 * 100, 6);
    expect(duration(3_725_000)).toBe('1 h 2 min');
    expect(duration(200_000)).toBe('3 min 20 s');
    expect(duration(Number.NaN)).toBe('?');
  });
});

describe('the sweep targets', () => {
  it("holds the default and the default with a copying middleware to each size's floor, and to 0.9x at every size", () => {
    const checks = checkLambdaTargets([size(256, 200), size(1769, 40)], [], undefined);
    const byName = new Map(checks.map((c) => [c.target, c]));
    expect(byName.get('256 MB: claim default ≥ 1.20x Powertools records/s')).toMatchObject({ measured: '2.00x', met: true });
    expect(byName.get('1,769 MB: claim default ≥ 0.95x Powertools records/s')).toMatchObject({ measured: '2.00x', met: true });
    expect(byName.get('256 MB: claim default + a copying middleware ≥ 1.20x Powertools records/s')).toMatchObject({
      measured: '0.80x',
      met: false,
    });
    expect(byName.get('every size: claim default ≥ 0.90x Powertools records/s')).toMatchObject({
      measured: 'lowest 2.00x at 256 MB',
      met: true,
    });
    expect(byName.get('every size: claim default + a copying middleware ≥ 0.90x Powertools records/s')).toMatchObject({
      measured: 'lowest 0.80x at 256 MB',
      met: false,
    });
    // Sizes the run did not have are not measured, not missed.
    expect(byName.get('512 MB: claim default ≥ 1.00x Powertools records/s')).toMatchObject({ measured: 'not measured', met: null });
    expect(byName.get('1,024 MB: claim default ≥ 1.00x Powertools records/s')).toMatchObject({ met: null });
    // No cold start, no Lambda Managed Instances measured: no targets of theirs.
    expect(checks.some((c) => c.target.includes('cold start') || c.target.includes('on demand'))).toBe(false);
    expect(checks.some((c) => c.target.startsWith('Lambda Managed Instances'))).toBe(false);
    expect(byName.get('every variant applies every event exactly once in every run (effects read back)')).toMatchObject({ met: true });
  });
});
