/**
 * The targets, checked against a run. They are shown in the report,
 * never asserted: timing is not a pass/fail test.
 */
import type { ColdStartFigures } from './cold-start.js';
import type { TargetCheck, VariantResult } from './results.js';

const x = (n: number) => `${n.toFixed(2)}x`;
const req = (n: number) => n.toFixed(2);

function find(results: readonly VariantResult[], id: string): VariantResult | undefined {
  return results.find((r) => r.id === id);
}

/** A "higher is better" target: met, or missed by the gap and its share of the goal. */
function atLeast(target: string, value: number | null | undefined, goal: number, show: (n: number) => string): TargetCheck {
  if (value === null || value === undefined || !Number.isFinite(value))
    return { target, measured: 'not measured', met: null, shortfall: undefined };
  const met = value >= goal;
  const shortfall = met ? undefined : `${show(goal - value)} short (${((1 - value / goal) * 100).toFixed(0)}% below ${show(goal)})`;
  return { target, measured: show(value), met, shortfall };
}

/** A "lower is better" target: met, or missed by the excess. */
function atMost(target: string, value: number | null | undefined, goal: number, show: (n: number) => string): TargetCheck {
  if (value === null || value === undefined || !Number.isFinite(value))
    return { target, measured: 'not measured', met: null, shortfall: undefined };
  // Request counts come from a least-squares fit: allow for float noise.
  const met = value <= goal + 1e-6;
  const shortfall = met ? undefined : `${show(value - goal)} over ${show(goal)}`;
  return { target, measured: show(value), met, shortfall };
}

export function checkTargets(results: readonly VariantResult[], coldStart: ColdStartFigures | undefined): TargetCheck[] {
  const tx = find(results, 'ours-transaction');
  const claim = find(results, 'ours-claim');
  const cached = find(results, 'ours-claim-cache');
  const pt = find(results, 'powertools');
  const ptFresh = pt?.figures.requestsSplit.fresh;
  return [
    atMost(
      `transaction: ≤ 1.00 DynamoDB requests per fresh delivery, business write included (Powertools: ${ptFresh == null ? '-' : req(ptFresh)})`,
      tx?.figures.requestsSplit.fresh,
      1,
      req,
    ),
    atLeast('transaction: ≥ 2.00x Powertools records/s', tx?.ratio, 2, x),
    atLeast('claim: ≥ 1.00x Powertools records/s', claim?.ratio, 1, x),
    atMost('claim: a duplicate costs at most 1 request', claim?.figures.requestsSplit.duplicate, 1, req),
    atMost('claim with the warm-container cache: a duplicate costs 0 requests', cached?.figures.requestsSplit.duplicate, 0, req),
    bundleTarget(coldStart),
  ];
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

function bundleTarget(coldStart: ColdStartFigures | undefined): TargetCheck {
  const target = 'bundle: at most a third of Powertools idempotency + batch (minified bytes)';
  if (coldStart === undefined) return { target, measured: 'not measured', met: null, shortfall: undefined };
  const ours = coldStart.ours.bytes;
  const allowed = coldStart.powertools.bytes / 3;
  const measured = `${kb(ours)} vs ${kb(coldStart.powertools.bytes)} = ${x(ours / coldStart.powertools.bytes)}`;
  const met = ours <= allowed;
  return { target, measured, met, shortfall: met ? undefined : `${kb(ours - allowed)} over the ${kb(allowed)} a third allows` };
}
