import { describe, expect, it } from 'vitest';
import { laneFigures, median, percentile, sliceRatio, sliceRates, splitPerDelivery, type SampleLike } from '../../../bench/stats.js';

function sample(fresh: number, duplicates: number, requests: Record<string, number>, ms = 10, slice = 0): SampleLike {
  return {
    ms,
    cpuMs: 1,
    serverCpuMs: 2,
    tally: { requests, units: 0, requestMs: 2 * Object.values(requests).reduce((a, b) => a + b, 0), wru: 0, rru: 0 },
    records: fresh + duplicates,
    fresh,
    duplicates,
    failures: 0,
    firstEffectMs: fresh > 0 ? 4 : Number.NaN,
    slice,
  };
}

describe('percentile and median', () => {
  it('takes the nearest rank and the middle', () => {
    const values = [5, 1, 4, 2, 3];
    expect(percentile(values, 50)).toBe(3);
    expect(percentile(values, 99)).toBe(5);
    expect(percentile(values, 1)).toBe(1);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('splitPerDelivery', () => {
  it('recovers the cost of a fresh and of a duplicate delivery from mixed batches', () => {
    const samples = [sample(10, 0, {}), sample(7, 3, {}), sample(4, 6, {}), sample(9, 1, {})];
    const split = splitPerDelivery(samples, (s) => 3 * s.fresh + s.duplicates);
    expect(split.fresh).toBeCloseTo(3, 9);
    expect(split.duplicate).toBeCloseTo(1, 9);
  });

  it('says null for a kind the run did not have, or could not tell apart', () => {
    expect(splitPerDelivery([sample(10, 0, {}), sample(5, 0, {})], (s) => 2 * s.fresh)).toEqual({ fresh: 2, duplicate: null });
    expect(splitPerDelivery([sample(5, 5, {}), sample(2, 2, {})], (s) => s.records)).toEqual({ fresh: null, duplicate: null });
  });
});

describe('slices', () => {
  it('gives records/s per slice and the median of the slice-by-slice ratios', () => {
    const a = [sample(10, 0, {}, 10, 0), sample(10, 0, {}, 20, 1), sample(10, 0, {}, 40, 2)];
    expect(sliceRates(a)).toEqual([1000, 500, 250]);
    expect(sliceRatio([1000, 500, 250], [500, 500, 500])).toBe(1);
    expect(sliceRatio([1000, 400], [500, 100])).toBe(3);
  });
});

describe('laneFigures', () => {
  it('counts requests per delivery by command and per kind of delivery', () => {
    const samples = [sample(10, 0, { UpdateItemCommand: 30 }, 30, 0), sample(8, 2, { UpdateItemCommand: 26 }, 30, 1)];
    const f = laneFigures(samples, false);
    expect(f.records).toBe(20);
    expect(f.requestsPerDelivery).toBe(2.8);
    expect(f.byCommand).toEqual({ UpdateItem: 2.8 });
    expect(f.requestsSplit.fresh).toBeCloseTo(3, 9);
    expect(f.requestsSplit.duplicate).toBeCloseTo(1, 9);
    expect(f.unitsPerDelivery).toBeNull();
    expect(f.cpuMsPerBatch).toBe(1);
    expect(f.serverCpuMsPerBatch).toBe(2);
    expect(f.requestMs).toBe(2);
    expect(f.firstEffectMs).toBe(4);
    expect(f.recordsPerSecond).toBeCloseTo(333.33, 1);
  });
});
