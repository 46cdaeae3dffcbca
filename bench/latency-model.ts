/**
 * DynamoDB's latency as a Lambda function sees it, the one place its figures
 * are kept: the bench's AWS model (aws-model.ts) draws every request's
 * latency from them, and group commit's probe policy reads the means it
 * derives here from a precomputed table
 * (src/strategies/transaction/group-commit/latency-table.ts, printed by
 * `npx tsx bench/latency-table.ts`; test/unit/transaction/latency-table.test.ts
 * checks the table against this model, so the policy and the model that
 * judges it cannot drift apart). Source: alexdebrie/dynamodb-performance-testing, 400 invocations per
 * operation timed from a Lambda function in the table's region (client side:
 * SDK, network and DynamoDB), each class fitted to a lognormal by its p50 and
 * p99. `BatchGetItem` has no published figure: the slowest of one single-item
 * read per key (the bench models it so too, conservatively).
 */

/** A latency class as measured: median and 99th percentile, ms. */
export interface Percentiles {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** A lognormal distribution: ln(X) ~ Normal(mu, sigma²), X in ms. */
export interface Lognormal {
  readonly mu: number;
  readonly sigma: number;
}

/**
 * The measured figures.
 */
export const dynamoLatency = {
  /** GetItem, PutItem, UpdateItem, DeleteItem. */
  single: { p50Ms: 7.55, p99Ms: 16.2 },
  /** TransactWriteItems / TransactGetItems by item count, linear in between. */
  transact: {
    fewItems: 5,
    few: { p50Ms: 25.3, p99Ms: 92.5 },
    manyItems: 25,
    many: { p50Ms: 32.1, p99Ms: 97.5 },
  },
  /** Standard normal quantile of 0.99: sigma = (ln p99 − ln p50) / z99. */
  z99: 2.3263,
} as const;

/**
 * The lognormal with this median and 99th percentile.
 */
export function fitLognormal(p: Percentiles, z99: number = dynamoLatency.z99): Lognormal {
  const mu = Math.log(p.p50Ms);
  return { mu, sigma: (Math.log(p.p99Ms) - mu) / z99 };
}

/**
 * A transaction's percentiles for `items` items: the 5-item figures at or
 * below 5 items, linear in the item count above (extrapolated past 25, where
 * no figure was published).
 */
export function transactPercentiles(items: number): Percentiles {
  const { fewItems, few, manyItems, many } = dynamoLatency.transact;
  const t = Math.max(0, items - fewItems) / (manyItems - fewItems);
  return { p50Ms: few.p50Ms + t * (many.p50Ms - few.p50Ms), p99Ms: few.p99Ms + t * (many.p99Ms - few.p99Ms) };
}

/**
 * Mean ms of a `TransactWriteItems` of `items` items (the lognormal's mean, exp(mu + sigma² / 2)).
 */
export function meanTransactMs(items: number): number {
  const { mu, sigma } = fitLognormal(transactPercentiles(items));
  return Math.exp(mu + (sigma * sigma) / 2);
}

/** Standard normal CDF (Abramowitz and Stegun 26.2.17, absolute error below 7.5e-8). */
function normalCdf(z: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(z));
  const poly = t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  const tail = Math.exp((-z * z) / 2) * 0.3989422804014327 * poly;
  return z >= 0 ? 1 - tail : tail;
}

/** Simpson's rule over z in [-7, 9] (the lognormal's mass beyond is below 1e-12 of its mean). */
const Z_FROM = -7;
const Z_TO = 9;
const STEPS = 320;

/**
 * Mean ms of the slowest of `n` single-item requests sent side by side: what
 * a `BatchGetItem` of `n` keys is taken to cost. E[max] = ∫ x · n F(x)^(n−1)
 * f(x) dx, integrated in the normal's z.
 */
export function meanSlowestSingleMs(n: number): number {
  const { mu, sigma } = fitLognormal(dynamoLatency.single);
  const count = Math.max(1, Math.round(n));
  const h = (Z_TO - Z_FROM) / STEPS;
  let sum = 0;
  for (let i = 0; i <= STEPS; i += 1) {
    const z = Z_FROM + i * h;
    const density = Math.exp((-z * z) / 2) * 0.3989422804014327;
    const value = Math.exp(mu + sigma * z) * count * normalCdf(z) ** (count - 1) * density;
    sum += value * (i === 0 || i === STEPS ? 1 : i % 2 === 1 ? 4 : 2);
  }
  return (sum * h) / 3;
}
