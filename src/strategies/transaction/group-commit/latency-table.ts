/**
 * DynamoDB's mean latency as a Lambda function sees it, precomputed from the
 * bench's latency model (bench/latency-model.ts) by bench/latency-table.ts:
 * do not edit, regenerate (test/unit/transaction/latency-table.test.ts checks
 * it against the model). Group commit's probe policy (duplicate-probe.ts)
 * weighs one with the other.
 */

/** Mean ms of a `TransactWriteItems` of i items, i = 1..100 (index i − 1). */
const TRANSACT_MEAN_MS: readonly number[] = [
  29.5501, 29.5501, 29.5501, 29.5501, 29.5501, 29.8712, 30.1923, 30.5135, 30.8346, 31.1558, 31.477, 31.7983, 32.1195, 32.4408, 32.7622,
  33.0835, 33.4049, 33.7264, 34.0478, 34.3694, 34.6909, 35.0125, 35.3342, 35.6559, 35.9776, 36.2994, 36.6213, 36.9432, 37.2652, 37.5872,
  37.9093, 38.2314, 38.5536, 38.8758, 39.1981, 39.5205, 39.8429, 40.1653, 40.4879, 40.8105, 41.1331, 41.4559, 41.7787, 42.1015, 42.4244,
  42.7474, 43.0704, 43.3935, 43.7167, 44.0399, 44.3632, 44.6866, 45.01, 45.3335, 45.6571, 45.9807, 46.3044, 46.6282, 46.952, 47.2759,
  47.5998, 47.9238, 48.2479, 48.5721, 48.8963, 49.2206, 49.5449, 49.8694, 50.1938, 50.5184, 50.843, 51.1677, 51.4924, 51.8173, 52.1421,
  52.4671, 52.7921, 53.1172, 53.4423, 53.7675, 54.0928, 54.4181, 54.7435, 55.069, 55.3945, 55.7201, 56.0457, 56.3715, 56.6972, 57.0231,
  57.349, 57.675, 58.001, 58.3271, 58.6533, 58.9795, 59.3058, 59.6321, 59.9585, 60.285,
];

/** Mean ms of the slowest of n single-item reads sent side by side (a `BatchGetItem` of n keys), n = 1..100. */
const SLOWEST_SINGLE_MS: readonly number[] = [
  7.9677, 9.4299, 10.2775, 10.8744, 11.3348, 11.7092, 12.0246, 12.2971, 12.5369, 12.7509, 12.9441, 13.1203, 13.2822, 13.4318, 13.571,
  13.7011, 13.8232, 13.9383, 14.047, 14.1501, 14.2481, 14.3415, 14.4308, 14.5162, 14.598, 14.6767, 14.7523, 14.8252, 14.8955, 14.9634,
  15.029, 15.0926, 15.1542, 15.2139, 15.2719, 15.3283, 15.3831, 15.4364, 15.4884, 15.539, 15.5884, 15.6365, 15.6836, 15.7295, 15.7744,
  15.8184, 15.8614, 15.9034, 15.9446, 15.985, 16.0246, 16.0634, 16.1014, 16.1388, 16.1755, 16.2115, 16.2468, 16.2816, 16.3157, 16.3493,
  16.3823, 16.4148, 16.4468, 16.4782, 16.5092, 16.5397, 16.5698, 16.5994, 16.6285, 16.6573, 16.6856, 16.7136, 16.7411, 16.7683, 16.7951,
  16.8216, 16.8477, 16.8735, 16.899, 16.9241, 16.949, 16.9735, 16.9977, 17.0216, 17.0453, 17.0687, 17.0918, 17.1146, 17.1372, 17.1596,
  17.1817, 17.2035, 17.2251, 17.2465, 17.2677, 17.2886, 17.3093, 17.3298, 17.3501, 17.3702,
];

/** Beyond 100 reads: [n, ms], linear in ln n in between, the last value past the end. */
const SLOWEST_SINGLE_TAIL: readonly (readonly [number, number])[] = [
  [100, 17.3702],
  [200, 18.7594],
  [500, 20.6095],
  [1000, 22.0244],
  [2000, 23.4559],
  [5000, 25.3776],
  [10000, 26.8562],
];

const at = (table: readonly number[], n: number) => table[Math.min(table.length, Math.max(1, Math.round(n))) - 1] as number;

/** Mean ms of a `TransactWriteItems` of `items` items (at most 100, the most one may hold). */
export function meanTransactMs(items: number): number {
  return at(TRANSACT_MEAN_MS, items);
}

/** Mean ms of the slowest of `n` single-item requests sent side by side: what a `BatchGetItem` of `n` keys is taken to cost. */
export function meanSlowestSingleMs(n: number): number {
  if (n <= 100) return at(SLOWEST_SINGLE_MS, n);
  for (let i = 1; i < SLOWEST_SINGLE_TAIL.length; i += 1) {
    const [n0, ms0] = SLOWEST_SINGLE_TAIL[i - 1] as readonly [number, number];
    const [n1, ms1] = SLOWEST_SINGLE_TAIL[i] as readonly [number, number];
    if (n <= n1) return ms0 + ((ms1 - ms0) * Math.log(n / n0)) / Math.log(n1 / n0);
  }
  return (SLOWEST_SINGLE_TAIL[SLOWEST_SINGLE_TAIL.length - 1] as readonly [number, number])[1];
}
