/**
 * The one-process bench's targets, checked against a run. They are shown in
 * the report, never asserted: timing is not a pass/fail test. The claim rows
 * are the default's (in one process its context says 128 MB, the testing
 * kit's default: batched requests) and the pipelined opt-in's.
 */
import { benchDefaults } from './args.js';
import type { ColdStartFigures } from './results.js';
import type { TargetCheck, VariantResult } from './results.js';

export const x = (n: number) => `${n.toFixed(2)}x`;
const req = (n: number) => n.toFixed(2);

export function find(results: readonly VariantResult[], id: string): VariantResult | undefined {
  return results.find((r) => r.id === id);
}

/** A "higher is better" target: met, or missed by the gap and its share of the goal. */
export function atLeast(target: string, value: number | null | undefined, goal: number, show: (n: number) => string): TargetCheck {
  if (value === null || value === undefined || !Number.isFinite(value))
    return { target, measured: 'not measured', met: null, shortfall: undefined };
  const met = value >= goal;
  const shortfall = met ? undefined : `${show(goal - value)} short (${((1 - value / goal) * 100).toFixed(0)}% below ${show(goal)})`;
  return { target, measured: show(value), met, shortfall };
}

/** A "lower is better" target: met, or missed by the excess. */
export function atMost(target: string, value: number | null | undefined, goal: number, show: (n: number) => string): TargetCheck {
  if (value === null || value === undefined || !Number.isFinite(value))
    return { target, measured: 'not measured', met: null, shortfall: undefined };
  // Request counts come from a least-squares fit: allow for float noise.
  const met = value <= goal + 1e-6;
  const shortfall = met ? undefined : `${show(value - goal)} over ${show(goal)}`;
  return { target, measured: show(value), met, shortfall };
}

/** The run's shape the targets depend on (the transaction goals differ by duplicate rate). */
export interface TargetWorkload {
  readonly duplicateRate: number;
}

/** A variant's figure over the Powertools row it is compared with. */
export function overPowertools(
  results: readonly VariantResult[],
  r: VariantResult | undefined,
  pick: (v: VariantResult) => number | null,
): number | undefined {
  const pt = r?.comparedWith === undefined ? undefined : find(results, r.comparedWith);
  const ours = r === undefined ? null : pick(r);
  const theirs = pt === undefined ? null : pick(pt);
  return ours === null || theirs === null || theirs <= 0 ? undefined : ours / theirs;
}

export function checkTargets(
  results: readonly VariantResult[],
  coldStart: ColdStartFigures | undefined,
  workload: TargetWorkload = { duplicateRate: benchDefaults.duplicateRate },
): TargetCheck[] {
  const tx = find(results, 'ours-transaction');
  const cached = find(results, 'ours-claim-cache');
  const pt = find(results, 'powertools');
  const ptFresh = pt?.figures.requestsSplit.fresh;
  const rare = workload.duplicateRate <= 0.01;
  const claimLabels = new Map([
    ['ours-default', 'claim default'],
    ['ours-claim-pipelined', 'claim, pipelined'],
  ]);
  const claims = [...claimLabels.keys()].flatMap((id) => find(results, id) ?? []);
  const label = (c: VariantResult) => claimLabels.get(c.id) ?? c.id;
  const cpu = (v: VariantResult) => v.figures.cpuMsPerBatch;
  return [
    atMost(
      `transaction: ≤ 1.00 DynamoDB requests per fresh delivery, business write included (Powertools: ${ptFresh == null ? '-' : req(ptFresh)})`,
      tx?.figures.requestsSplit.fresh,
      1,
      req,
    ),
    rare
      ? atLeast('transaction: ≥ 3.00x Powertools records/s', tx?.ratio, 3, x)
      : atLeast('transaction: ≥ 2.00x Powertools records/s', tx?.ratio, 2, x),
    ...(rare ? [atMost('transaction: ≤ 0.25 requests per delivery', tx?.figures.requestsPerDelivery, 0.25, req)] : []),
    atMost('transaction: Node CPU per batch ≤ 0.50x Powertools', overPowertools(results, tx, cpu), 0.5, x),
    ...claims.flatMap((c) => [
      atLeast(`${label(c)}: ≥ 1.10x Powertools records/s`, c.ratio, 1.1, x),
      atMost(
        `${label(c)}: first effect no later than Powertools' (ratio of 1st effect ms)`,
        overPowertools(results, c, (v) => v.figures.firstEffectMs),
        1,
        x,
      ),
      atMost(`${label(c)}: Node CPU per batch ≤ 1.00x Powertools`, overPowertools(results, c, cpu), 1, x),
    ]),
    atMost('claim default: a duplicate costs at most 1 request', claims[0]?.figures.requestsSplit.duplicate, 1, req),
    atMost('claim with the warm-container cache: a duplicate costs 0 requests', cached?.figures.requestsSplit.duplicate, 0, req),
    bundleTarget(coldStart),
    importTarget(coldStart),
  ];
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

function bundleTarget(coldStart: ColdStartFigures | undefined): TargetCheck {
  const target = 'bundle (claim entry): at most 0.5x Powertools idempotency + batch (minified bytes)';
  if (coldStart === undefined) return { target, measured: 'not measured', met: null, shortfall: undefined };
  const ours = coldStart.ours.bytes;
  const allowed = coldStart.powertools.bytes / 2;
  const measured = `${kb(ours)} vs ${kb(coldStart.powertools.bytes)} = ${x(ours / coldStart.powertools.bytes)}`;
  const met = ours <= allowed;
  return { target, measured, met, shortfall: met ? undefined : `${kb(ours - allowed)} over the ${kb(allowed)} half allows` };
}

function importTarget(coldStart: ColdStartFigures | undefined): TargetCheck {
  const target = "import time (claim entry) with the AWS SDK preloaded: at most Powertools'";
  if (coldStart === undefined) return { target, measured: 'not measured', met: null, shortfall: undefined };
  const ours = coldStart.ours.libraryImportMs;
  const theirs = coldStart.powertools.libraryImportMs;
  const measured = `${ours.toFixed(1)} vs ${theirs.toFixed(1)} ms`;
  const met = ours <= theirs;
  return { target, measured, met, shortfall: met ? undefined : `${(ours - theirs).toFixed(1)} ms over (${x(ours / theirs)})` };
}
