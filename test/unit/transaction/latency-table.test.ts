/**
 * Group commit's latency table against the model it was printed from
 * (bench/latency-model.ts): a change to the model's figures fails here until
 * `npx tsx bench/latency-table.ts` regenerates the table.
 */
import { describe, expect, it } from 'vitest';
import { DECIMALS, TABLE_SIZE, TAIL_SIZES } from '../../../bench/latency-table.js';
import * as model from '../../../bench/latency-model.js';
import { meanSlowestSingleMs, meanTransactMs } from '../../../src/strategies/transaction/group-commit/latency-table.js';

/** Within the table's rounding. */
const closeTo = (table: number, computed: number) => expect(Math.abs(table - computed)).toBeLessThanOrEqual(0.5 * 10 ** -DECIMALS + 1e-12);

describe('the latency table group commit reads, against the latency model', () => {
  it("holds the model's mean transaction for every item count it may be asked for", () => {
    for (let items = 1; items <= TABLE_SIZE; items += 1) closeTo(meanTransactMs(items), model.meanTransactMs(items));
    // Asked below 1 or above the largest transaction: the nearest size.
    expect(meanTransactMs(0)).toBe(meanTransactMs(1));
    expect(meanTransactMs(TABLE_SIZE + 50)).toBe(meanTransactMs(TABLE_SIZE));
  });

  it("holds the model's slowest of n single reads (the integral) for every n up to a BatchGetItem's 100 keys", () => {
    for (let n = 1; n <= TABLE_SIZE; n += 1) closeTo(meanSlowestSingleMs(n), model.meanSlowestSingleMs(n));
  });

  it('follows the model beyond 100 reads: exact at the tabulated sizes, within 0.5 % in between', () => {
    for (const n of TAIL_SIZES) closeTo(meanSlowestSingleMs(n), model.meanSlowestSingleMs(n));
    for (const n of [137, 350, 777, 1_500, 3_333, 8_000]) {
      const computed = model.meanSlowestSingleMs(n);
      expect(Math.abs(meanSlowestSingleMs(n) - computed) / computed).toBeLessThan(0.005);
    }
    // Growing with n all the way.
    const sizes = [1, 10, 100, 150, 1_000, 10_000];
    const means = sizes.map(meanSlowestSingleMs);
    expect(means).toEqual([...means].sort((a, b) => a - b));
  });
});
