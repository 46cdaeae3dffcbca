/**
 * The targets the one-process `--aws` run is judged on (set when the AWS
 * model was made), checked against it and shown, never asserted.
 */
import { atLeast, atMost, find, overPowertools, x, type TargetWorkload } from './targets.js';
import type { TargetCheck, VariantResult } from './results.js';

/** $ differ by fractions of a percent where the requests are the same: three decimals. */
const x3 = (n: number) => `${n.toFixed(3)}x`;

const CLAIMS = [
  ['ours-default', 'claim default'],
  ['ours-claim-pipelined', 'claim, pipelined'],
] as const;

export function checkAwsTargets(results: readonly VariantResult[], workload: TargetWorkload): TargetCheck[] {
  const rare = workload.duplicateRate <= 0.01;
  const ratio = (r: VariantResult | undefined, pick: (v: VariantResult) => number | null) => overPowertools(results, r, pick);
  const p99 = (v: VariantResult) => v.figures.p99Ms;
  const cpu = (v: VariantResult) => v.figures.cpuMsPerBatch;
  const usd = (v: VariantResult) => v.figures.usdPerMillionDeliveries;
  const lambda = (v: VariantResult) => v.figures.lambdaMs256;
  const claims = CLAIMS.flatMap(([id, label]) => {
    const c = find(results, id);
    if (c === undefined) return [];
    return [
      atLeast(`${label}: ≥ 1.15x Powertools records/s`, c.ratio, 1.15, x),
      atMost(`${label}: p99 batch ms ≤ Powertools'`, ratio(c, p99), 1, x),
      atMost(`${label}: Node CPU per batch ≤ 0.60x Powertools`, ratio(c, cpu), 0.6, x),
      atMost(`${label}: $ per million deliveries ≤ Powertools'`, ratio(c, usd), 1, x3),
    ];
  });
  const tx = find(results, 'ours-transaction');
  const state = find(results, 'ours-state');
  return [
    ...claims,
    rare
      ? atLeast('transaction (group commit): ≥ 1.05x Powertools records/s at 1 %', tx?.ratio, 1.05, x)
      : atLeast('transaction (group commit): ≥ 0.78x Powertools records/s at 25 %', tx?.ratio, 0.78, x),
    atMost("transaction: p99 batch ms ≤ 1.50x Powertools'", ratio(tx, p99), 1.5, x),
    atMost('transaction: modelled Lambda ms at 256 MB ≤ 0.60x Powertools', ratio(tx, lambda), 0.6, x),
    atLeast('state machine: ≥ 2.50x Powertools (order update) records/s', state?.ratio, 2.5, x),
  ];
}
