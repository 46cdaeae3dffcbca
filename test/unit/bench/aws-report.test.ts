import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../../bench/args.js';
import { awsModel } from '../../../bench/aws-model.js';
import { checkAwsTargets } from '../../../bench/aws-targets.js';
import { renderSection, sectionKey } from '../../../bench/docs.js';
import { formatReport } from '../../../bench/main/output.js';
import { mergeSection, NOTES_MARKER } from '../../../bench/sections.js';
import type { ProcessReport, VariantResult } from '../../../bench/results.js';
import { awsFigures, laneFigures, type SampleLike } from '../../../bench/stats.js';
import { selectVariants } from '../../../bench/variants.js';
import { fixtureMachine, fixtureVersions } from '../../support/bench-report.js';

function sample(ms: number, cpuMs: number, wru: number, rru: number): SampleLike {
  return {
    ms,
    cpuMs,
    serverCpuMs: 1,
    tally: { requests: { PutItem: 10 }, units: 0, requestMs: 10, wru, rru },
    records: 10,
    fresh: 10,
    duplicates: 0,
    failures: 0,
    firstEffectMs: 1,
    slice: 0,
  };
}

function variant(id: string, samples: SampleLike[], ratio: number | null): VariantResult {
  return {
    id,
    title: id,
    setup: '',
    comparedWith: id.startsWith('powertools') ? undefined : id === 'ours-state' ? 'powertools-order' : 'powertools',
    idempotent: true,
    figures: laneFigures(samples, false, true),
    ratio,
    effects: { applied: 10, unique: 10, points: 1, expectedPoints: 1 },
    error: undefined,
  };
}

function report(duplicateRate: number, variants: VariantResult[]): ProcessReport {
  return {
    kind: 'process',
    date: '2026-12-01T00:00:00.000Z',
    durationS: 1,
    command: 'npm run bench -- --aws',
    machine: fixtureMachine(1, 1),
    versions: fixtureVersions,
    workload: {
      events: 10,
      duplicates: 0,
      deliveries: 10,
      batches: 1,
      batchSize: 10,
      seed: 1,
      duplicateRate,
      warmupBatches: 0,
      slices: 1,
      latencyMs: 0,
      unitsCounted: false,
      aws: true,
    },
    variants,
    targets: checkAwsTargets(variants, { duplicateRate }),
    coldStart: undefined,
    fencing: [],
    aws: { model: awsModel, pinning: 'DynamoDB Local pinned to CPU 0, the bench to CPU 1 (taskset -a -p)' },
  };
}

describe('the --aws figures', () => {
  it('models Lambda ms from the p50 batch and the CPU per batch, and prices units and GB-s per delivery', () => {
    const f = awsFigures([sample(40, 10, 26, 0), sample(60, 10, 26, 0)], 40, 10);
    expect(f.lambdaMs256).toBeCloseTo(40 + 10 * (1769 / 256 - 1), 9);
    expect(f.wruPerDelivery).toBe(2.6);
    const billed = Math.ceil(40 + 59.1015625) + Math.ceil(60 + 59.1015625);
    // $ per million deliveries: (WRU × price + GB-s × price + requests × price) per delivery.
    const usd = (52 * 0.625 + 0.25 * (billed / 1000) * 0.0000166667 * 1e6 + 2 * 0.2) / 20;
    expect(f.usdPerMillionDeliveries).toBeCloseTo(usd, 6);
    expect(laneFigures([sample(40, 10, 26, 0)], false).usdPerMillionDeliveries).toBeNull();
  });

  it('carries ratio, p99, CPU, $ and Lambda ms per variant in the JSON', () => {
    const json = JSON.parse(formatReport(report(0.25, [variant('powertools', [sample(40, 20, 26, 0)], null)]), true)) as ProcessReport;
    const f = json.variants[0]?.figures;
    expect(Object.keys(f ?? {})).toEqual(expect.arrayContaining(['p99Ms', 'cpuMsPerBatch', 'usdPerMillionDeliveries', 'lambdaMs256']));
    expect(json.variants[0]).toHaveProperty('ratio');
    expect(json.aws?.model.latency.single.p50Ms).toBe(7.55);
  });

  it('runs the other transaction configurations only when named', () => {
    const ids = (only: string[]) => selectVariants(only).map((v) => v.id);
    expect(ids([])).not.toContain('ours-transaction-probe-never');
    expect(ids([])).toContain('ours-transaction');
    expect(ids(['ours-transaction-probe-never'])).toEqual(['powertools', 'ours-transaction-probe-never']);
  });

  it('refuses --aws with --latency', () => {
    expect(parseBenchArgs(['--aws']).aws).toBe(true);
    expect(() => parseBenchArgs(['--aws', '--latency', '5'])).toThrow(/--aws and --latency/);
  });
});

describe('the --aws section', () => {
  const pt = variant('powertools', [sample(40, 20, 26, 0)], null);
  const claim = variant('ours-default', [sample(35, 10, 26, 0)], 1.2);

  it('has its own keys and leads the file, above the DynamoDB Local sections', () => {
    expect(sectionKey(report(0.25, [pt]))).toBe('aws');
    expect(sectionKey(report(0.01, [pt]))).toBe('aws-dup-0.01');
    const local = `# B\n\nintro\n\n<!-- bench:begin latency-0 -->\nold\n<!-- bench:end latency-0 -->\n\n${NOTES_MARKER}\n`;
    const once = mergeSection(local, renderSection(report(0.25, [pt, claim])), 'aws');
    const twice = mergeSection(once, renderSection(report(0.01, [pt])), 'aws-dup-0.01');
    expect(twice.indexOf('bench:begin aws ')).toBeGreaterThan(twice.indexOf('intro'));
    expect(twice.indexOf('bench:end aws ')).toBeLessThan(twice.indexOf('bench:begin aws-dup-0.01'));
    expect(twice.indexOf('bench:end aws-dup-0.01')).toBeLessThan(twice.indexOf('bench:begin latency-0'));
    expect(mergeSection(twice, renderSection(report(0.25, [pt])), 'aws').match(/bench:begin aws /g)).toHaveLength(1);
  });

  it('states the source and every parameter, and the two added columns', () => {
    const text = renderSection(report(0.25, [pt, claim]));
    expect(text).toContain('alexdebrie/dynamodb-performance-testing');
    for (const n of ['7.55', '16.20', '25.30', '92.50', '32.10', '97.50', '0.625', '0.125', '0.0000166667', '256 MB', '1769'])
      expect(text).toContain(n);
    expect(text).toContain('| $ / M deliveries | Lambda ms/batch @256 MB |');
    expect(text).toContain('pinned to CPU 0');
  });

  it('judges the claim strategy on records/s, p99, CPU and $ against Powertools', () => {
    const targets = checkAwsTargets([pt, claim], { duplicateRate: 0.25 });
    const t = (prefix: string) => targets.find((c) => c.target.startsWith(prefix));
    expect(t('claim default: ≥ 1.15x')?.met).toBe(true);
    expect(t('claim default: Node CPU per batch ≤ 0.60x')).toMatchObject({ met: true, measured: '0.50x' });
    expect(t('transaction (group commit): ≥ 0.78x')?.met).toBeNull();
    expect(checkAwsTargets([pt], { duplicateRate: 0.01 }).some((c) => c.target.includes('≥ 1.05x'))).toBe(true);
  });
});
