import { describe, expect, it } from 'vitest';
import { renderSection, sectionKey } from '../../../bench/docs.js';
import { markdownTable } from '../../../bench/format.js';
import { mergeSection, NOTES_MARKER } from '../../../bench/sections.js';
import { unitsNotes } from '../../../bench/report.js';
import type { ProcessReport, VariantResult } from '../../../bench/results.js';
import { checkTargets } from '../../../bench/targets.js';
import { fixtureMachine, fixtureVersions } from '../../support/bench-report.js';

function variant(id: string, over: Partial<VariantResult> = {}, fresh = 3, duplicate = 1): VariantResult {
  return {
    id,
    title: id,
    setup: '',
    comparedWith: id === 'powertools' ? undefined : 'powertools',
    idempotent: id !== 'baseline',
    figures: {
      records: 100,
      batches: 10,
      recordsPerSecond: 300,
      sliceRates: [300],
      requestsPerDelivery: 2.6,
      byCommand: { UpdateItem: 2.6 },
      requestsSplit: { fresh, duplicate },
      unitsPerDelivery: null,
      p50Ms: 30,
      p99Ms: 60,
      requestMs: 1.5,
      firstEffectMs: 3,
      cpuMsPerBatch: 15,
      serverCpuMsPerBatch: 10,
      failures: 0,
      requestPatterns: {},
      wruPerDelivery: null,
      rruPerDelivery: null,
      usdPerMillionDeliveries: null,
      lambdaMs256: null,
    },
    ratio: id === 'powertools' ? null : 0.9,
    effects: { applied: 80, unique: 80, points: 10, expectedPoints: 10 },
    error: undefined,
    ...over,
  };
}

function report(latencyMs: number, variants: VariantResult[], duplicateRate = 0.25, unitsCounted = false): ProcessReport {
  return {
    kind: 'process',
    date: '2026-01-01T00:00:00.000Z',
    durationS: 100,
    command: latencyMs === 0 ? 'npm run bench' : `npm run bench -- --latency ${latencyMs}`,
    machine: fixtureMachine(1, 2),
    versions: fixtureVersions,
    workload: {
      events: 80,
      duplicates: 20,
      deliveries: 100,
      batches: 10,
      batchSize: 10,
      seed: 1,
      duplicateRate,
      warmupBatches: 2,
      slices: 5,
      latencyMs,
      unitsCounted,
      aws: false,
    },
    variants,
    targets: checkTargets(variants, undefined),
    coldStart: undefined,
    fencing: [],
  };
}

describe('renderSection', () => {
  it('carries the command, a row per variant, and flags an idempotent variant whose effects are off', () => {
    const text = renderSection(
      report(0, [
        variant('powertools'),
        variant('baseline', { effects: { applied: 100, unique: 80, points: 12, expectedPoints: 10 } }),
        variant('ours-claim', { effects: { applied: 79, unique: 80, points: 9, expectedPoints: 10 } }),
      ]),
    );
    expect(text).toContain('`npm run bench`');
    expect(text).toContain('| baseline | 300 | 0.90x |');
    expect(text).toContain('100/80 (+20)');
    expect(text).toContain('**ours-claim: 79 effects applied for 80 unique events**');
    expect(text).not.toContain('**baseline');
  });
});

describe('mergeSection', () => {
  it('replaces only its own section and keeps the notes and the other sections', () => {
    const first = mergeSection(`# B\n\n${NOTES_MARKER}\nnotes by hand\n`, renderSection(report(0, [variant('powertools')])), 'latency-0');
    const both = mergeSection(first, renderSection(report(5, [variant('powertools')])), 'latency-5');
    const again = mergeSection(both, renderSection(report(0, [variant('powertools'), variant('ours-claim')])), 'latency-0');
    expect(again.match(/bench:begin latency-0/g)).toHaveLength(1);
    expect(again.match(/bench:begin latency-5/g)).toHaveLength(1);
    expect(again).toContain('| ours-claim |');
    expect(again.indexOf('bench:begin latency-0')).toBeLessThan(again.indexOf('bench:begin latency-5'));
    expect(again.indexOf('bench:end latency-5')).toBeLessThan(again.indexOf(NOTES_MARKER));
    expect(again.endsWith('notes by hand\n')).toBe(true);
  });

  it('escapes pipes inside cells', () => {
    expect(markdownTable(['a'], [['x | y']])[2]).toBe('| x \\| y |');
  });
});

describe('checkTargets', () => {
  it('says by how much a target is missed, and marks what was not measured', () => {
    const targets = checkTargets(
      [variant('powertools'), variant('ours-transaction', { ratio: 1.5 }, 1, 1), variant('ours-default', { ratio: 1.1 })],
      undefined,
    );
    const byName = (prefix: string) => targets.find((t) => t.target.startsWith(prefix));
    expect(byName('transaction: ≤ 1.00')?.met).toBe(true);
    expect(byName('transaction: ≥ 2.00x')).toMatchObject({ met: false, measured: '1.50x', shortfall: '0.50x short (25% below 2.00x)' });
    expect(byName('claim default: ≥ 1.10x')?.met).toBe(true);
    expect(byName('claim with the warm-container cache')?.met).toBeNull();
    expect(byName('bundle')?.met).toBeNull();
  });
});

describe('the --dup-rate and --units runs', () => {
  it('a run at another duplicate rate gets its own section beside the default one', () => {
    const base = report(0, [variant('powertools')]);
    const rare = report(0, [variant('powertools')], 0.01);
    expect(sectionKey(base)).toBe('latency-0');
    expect(sectionKey(rare)).toBe('latency-0-dup-0.01');
    expect(renderSection(rare)).toContain('1 % duplicates');
    const both = mergeSection(
      mergeSection(`# B\n\n${NOTES_MARKER}\n`, renderSection(base), 'latency-0'),
      renderSection(rare),
      sectionKey(rare),
    );
    expect(both.match(/bench:begin latency-0 /g)).toHaveLength(1);
    expect(both.match(/bench:begin latency-0-dup-0.01 /g)).toHaveLength(1);
  });

  it('says plainly which variant costs more capacity units per delivery than Powertools, and why for transactions', () => {
    const units = (n: number) => ({ unitsPerDelivery: n });
    const pt = variant('powertools');
    const rows = [
      { ...pt, title: 'Powertools', figures: { ...pt.figures, ...units(2.6) } },
      (() => {
        const v = variant('ours-transaction');
        return { ...v, title: 'ours, transaction', figures: { ...v.figures, ...units(3.2), byCommand: { TransactWriteItems: 1 } } };
      })(),
      (() => {
        const v = variant('ours-claim');
        return { ...v, title: 'ours, claim', figures: { ...v.figures, ...units(2.6) } };
      })(),
    ];
    const notes = unitsNotes(report(0, rows, 0.25, true));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('ours, transaction: 3.20 capacity units per delivery vs Powertools 2.60');
    expect(notes[0]).toContain('transactional writes are billed twice');
    expect(renderSection(report(0, rows, 0.25, true))).toContain('3.20 capacity units per delivery');
    expect(unitsNotes(report(0, rows))).toEqual([]);
  });
});

describe('checkTargets (issue 12)', () => {
  const byName = (targets: ReturnType<typeof checkTargets>, prefix: string) => targets.find((t) => t.target.startsWith(prefix));

  it("holds the claim strategy to 1.10x and its first effect to Powertools' at both rates", () => {
    const rows = [variant('powertools'), variant('ours-claim-pipelined', { ratio: 1.05 })];
    const targets = checkTargets(rows, undefined, { duplicateRate: 0.01 });
    expect(byName(targets, 'claim, pipelined: ≥ 1.10x')).toMatchObject({ met: false, measured: '1.05x' });
    expect(byName(targets, 'claim, pipelined: first effect')?.met).toBe(true);
  });

  it('holds the transaction strategy to 3.00x and 0.25 requests per delivery at 1 % duplicates, 2.00x at 25 %', () => {
    const tx = variant('ours-transaction', { ratio: 2.5 }, 1, 1);
    expect(byName(checkTargets([variant('powertools'), tx], undefined), 'transaction: ≥ 2.00x')?.met).toBe(true);
    const rare = checkTargets([variant('powertools'), tx], undefined, { duplicateRate: 0.01 });
    expect(byName(rare, 'transaction: ≥ 3.00x')?.met).toBe(false);
    expect(byName(rare, 'transaction: ≤ 0.25 requests per delivery')).toMatchObject({ met: false, measured: '2.60' });
  });

  it("compares Node CPU per batch with Powertools': transaction at most 0.5x, claim at most 1.0x", () => {
    const pt = variant('powertools');
    const cpu = (id: string, ms: number) => {
      const v = variant(id);
      return { ...v, figures: { ...v.figures, cpuMsPerBatch: ms } };
    };
    const targets = checkTargets(
      [{ ...pt, figures: { ...pt.figures, cpuMsPerBatch: 20 } }, cpu('ours-transaction', 11), cpu('ours-default', 19)],
      undefined,
    );
    expect(byName(targets, 'transaction: Node CPU per batch ≤ 0.50x')).toMatchObject({ met: false, measured: '0.55x' });
    expect(byName(targets, 'claim default: Node CPU per batch ≤ 1.00x')).toMatchObject({ met: true, measured: '0.95x' });
  });
});
