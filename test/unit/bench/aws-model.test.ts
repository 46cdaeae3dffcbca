import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  awsModel,
  drawFloorMs,
  drawLognormal,
  fitLognormal,
  floorDelayMs,
  lambdaMs,
  modelledOperation,
  transactPercentiles,
  usdPerMillionDeliveries,
} from '../../../bench/aws-model.js';
import { parseCpuList } from '../../../bench/cores.js';
import { withFloor, type FloorClock } from '../../../bench/latency.js';
import { variantSeed } from '../../../bench/lanes.js';
import { seededRandom } from '../../../bench/random.js';
import { percentile } from '../../../bench/stats.js';

const N = 40_000;

function draws(draw: () => number, n = N): number[] {
  return Array.from({ length: n }, draw);
}

/** A generator that hands out `values` in turn (then repeats them). */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length] as number;
}

describe('the lognormal fit', () => {
  it('puts the median at p50 and the 99th percentile at p99', () => {
    const { mu, sigma } = fitLognormal({ p50Ms: 7.55, p99Ms: 16.2 });
    expect(Math.exp(mu)).toBeCloseTo(7.55, 10);
    expect(Math.exp(mu + awsModel.latency.z99 * sigma)).toBeCloseTo(16.2, 10);
  });

  it.each([
    ['single-item', awsModel.latency.single],
    ['5-item transaction', awsModel.latency.transact.few],
    ['25-item transaction', awsModel.latency.transact.many],
  ])('seeded draws reproduce the %s p50 and p99', (_, p) => {
    const random = seededRandom(7);
    const values = draws(() => drawLognormal(random, fitLognormal(p)));
    expect(percentile(values, 50) / p.p50Ms).toBeGreaterThan(0.98);
    expect(percentile(values, 50) / p.p50Ms).toBeLessThan(1.02);
    expect(percentile(values, 99) / p.p99Ms).toBeGreaterThan(0.95);
    expect(percentile(values, 99) / p.p99Ms).toBeLessThan(1.05);
  });

  it('is seeded: the same seed draws the same floors', () => {
    const a = seededRandom(3);
    const b = seededRandom(3);
    const op = { kind: 'single' } as const;
    expect(draws(() => drawFloorMs(a, op), 50)).toEqual(draws(() => drawFloorMs(b, op), 50));
    expect(variantSeed(1, 'powertools')).toBe(variantSeed(1, 'powertools'));
    expect(variantSeed(1, 'powertools')).not.toBe(variantSeed(1, 'ours-claim'));
  });
});

describe('transactions by item count', () => {
  const { few, many } = awsModel.latency.transact;

  it('holds the 5-item figures below 5 items and reaches the 25-item ones at 25', () => {
    expect(transactPercentiles(1)).toEqual(few);
    expect(transactPercentiles(5)).toEqual(few);
    expect(transactPercentiles(25).p50Ms).toBeCloseTo(many.p50Ms, 10);
    expect(transactPercentiles(25).p99Ms).toBeCloseTo(many.p99Ms, 10);
  });

  it('interpolates linearly in between', () => {
    expect(transactPercentiles(15).p50Ms).toBeCloseTo((25.3 + 32.1) / 2, 10);
    expect(transactPercentiles(15).p99Ms).toBeCloseTo((92.5 + 97.5) / 2, 10);
    expect(transactPercentiles(20).p50Ms).toBeCloseTo(25.3 + 0.75 * 6.8, 10);
  });

  it('draws a 20-item TransactWriteItems around its interpolated median', () => {
    const random = seededRandom(11);
    const op = modelledOperation('TransactWriteItemsCommand', { TransactItems: new Array(20).fill({}) });
    expect(op).toEqual({ kind: 'transact', items: 20 });
    const median = percentile(
      draws(() => drawFloorMs(random, op)),
      50,
    );
    expect(median / transactPercentiles(20).p50Ms).toBeGreaterThan(0.98);
    expect(median / transactPercentiles(20).p50Ms).toBeLessThan(1.02);
  });
});

describe('operation classes', () => {
  it('classes every command by name and counts the items of transactions and batches', () => {
    expect(modelledOperation('PutItemCommand', {})).toEqual({ kind: 'single' });
    expect(modelledOperation('UpdateItem', {})).toEqual({ kind: 'single' });
    expect(modelledOperation('TransactGetItemsCommand', { TransactItems: [{}, {}] })).toEqual({ kind: 'transact', items: 2 });
    expect(modelledOperation('BatchGetItemCommand', { RequestItems: { a: { Keys: [1, 2, 3] }, b: { Keys: [4, 5, 6, 7] } } })).toEqual({
      kind: 'batch',
      items: 7,
    });
    expect(modelledOperation('BatchWriteItemCommand', { RequestItems: { a: [{}, {}] } })).toEqual({ kind: 'batch', items: 2 });
    expect(modelledOperation('BatchExecuteStatementCommand', { Statements: [{}, {}, {}] })).toEqual({ kind: 'batch', items: 3 });
    expect(modelledOperation('DescribeTableCommand', {})).toEqual({ kind: 'none' });
    expect(drawFloorMs(Math.random, { kind: 'none' })).toBe(0);
  });

  it('takes a batch operation as the slowest of one single-item draw per item', () => {
    const values = [0.1, 0.2, 0.9, 0.4, 0.3, 0.6];
    const batch = drawFloorMs(sequence(...values), { kind: 'batch', items: 3 });
    const single = sequence(...values);
    const one = () => drawFloorMs(single, { kind: 'single' });
    expect(batch).toBe(Math.max(one(), one(), one()));
    // Over many draws: the median of 10 is the single distribution's 0.5^(1/10) quantile (93.3 %).
    const random = seededRandom(5);
    const singles = draws(() => drawFloorMs(random, { kind: 'single' }));
    const tens = draws(() => drawFloorMs(random, { kind: 'batch', items: 10 }), 10_000);
    const expected = percentile(singles, 100 * 0.5 ** 0.1);
    expect(percentile(tens, 50) / expected).toBeGreaterThan(0.97);
    expect(percentile(tens, 50) / expected).toBeLessThan(1.03);
  });
});

describe('the floor', () => {
  /** A clock that moves only when told, and records the sleeps. */
  function fakeClock() {
    let now = 0;
    const slept: number[] = [];
    const clock: FloorClock = {
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    };
    return { clock, slept, advance: (ms: number) => (now += ms) };
  }
  // u2 = 0.25: cos(π/2) = 0, so the draw is the median exactly.
  const median = () => sequence(0.5, 0.25);

  it('waits the drawn floor minus the time the request already took', async () => {
    const { clock, slept, advance } = fakeClock();
    const answer = await withFloor(
      median(),
      'GetItemCommand',
      {},
      async () => {
        advance(3);
        return 'ok';
      },
      clock,
    );
    expect(answer).toBe('ok');
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeCloseTo(7.55 - 3, 9);
  });

  it('adds nothing to a request slower than its floor, and applies it to failed requests too', async () => {
    const slow = fakeClock();
    await withFloor(median(), 'PutItemCommand', {}, async () => slow.advance(12), slow.clock);
    expect(slow.slept).toEqual([]);
    const failing = fakeClock();
    await expect(
      withFloor(median(), 'PutItemCommand', {}, async () => Promise.reject(new Error('refused')), failing.clock),
    ).rejects.toThrow('refused');
    expect(failing.slept[0]).toBeCloseTo(7.55, 9);
    expect(floorDelayMs(10, 4)).toBe(6);
    expect(floorDelayMs(10, 14)).toBe(0);
  });
});

describe('Lambda duration and cost', () => {
  it('slows Node CPU to a 256 MB share of a vCPU', () => {
    expect(lambdaMs(40, 10)).toBeCloseTo(40 + 10 * (1769 / 256 - 1), 10);
    expect(lambdaMs(40, 10, 1769)).toBe(40);
  });

  it('prices units, GB-s and requests per million deliveries', () => {
    // 1 M deliveries in 100 k batches of 100 ms: 2.6 M WRU, 0.5 M RRU, 100 k × 0.1 s × 0.25 GB = 2,500 GB-s.
    const usd = usdPerMillionDeliveries({ writeUnits: 2.6e6, readUnits: 0.5e6, invocations: 1e5, billedMs: 1e5 * 100, deliveries: 1e6 });
    expect(usd).toBeCloseTo(2.6 * 0.625 + 0.5 * 0.125 + 2500 * 0.0000166667 + 0.1 * 0.2, 6);
  });

  it("uses serverless.yml's memory size", () => {
    const yml = readFileSync(new URL('../../../serverless.yml', import.meta.url), 'utf8');
    expect(Number(/memorySize:\s*(\d+)/.exec(yml)?.[1])).toBe(awsModel.lambda.memoryMb);
  });
});

describe('cores', () => {
  it('reads taskset CPU lists', () => {
    expect(parseCpuList('0,1')).toEqual([0, 1]);
    expect(parseCpuList(' 0-2,5\n')).toEqual([0, 1, 2, 5]);
  });
});
