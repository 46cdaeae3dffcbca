/**
 * The targets of the Lambda-shaped runs, checked against a run and shown,
 * never asserted (timing is not a pass/fail test): the memory sweep's, the
 * cold start's (on demand and provisioned, at every size) and Lambda Managed
 * Instances' (records per vCPU-second in every configuration).
 */
import type { ColdStartFigures, LmiConfigResult, SizeResult, SizeVariantResult, TargetCheck } from '../results.js';
import { atLeast, atMost, x } from '../targets.js';

/** The claim strategy's default: no `strategy` option, the library chooses. */
export const DEFAULT_CLAIM = 'ours-default';
/** The same with a middleware after ours that replaces the event with a copy (variants.ts `copyEvent`). */
export const DEFAULT_CLAIM_COPY = 'ours-default-copy';

function at(sizes: readonly SizeResult[], memoryMb: number, id: string): SizeVariantResult | undefined {
  return sizes.find((s) => s.memoryMb === memoryMb)?.variants.find((v) => v.id === id);
}

/** The lowest (or highest) finite value with where it was measured; undefined when there is none. */
function extreme(values: ReadonlyArray<{ where: string; value: number | null | undefined }>, pick: 'lowest' | 'highest') {
  let found: { where: string; value: number } | undefined;
  for (const { where, value } of values) {
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (found === undefined || (pick === 'lowest' ? value < found.value : value > found.value)) found = { where, value };
  }
  return found;
}

/** "≥ goal everywhere": the lowest value against the goal, said with where it was measured. */
function lowestAtLeast(target: string, values: ReadonlyArray<{ where: string; value: number | null | undefined }>, goal: number) {
  const low = extreme(values, 'lowest');
  return { ...atLeast(target, low?.value, goal, x), ...(low === undefined ? {} : { measured: `lowest ${x(low.value)} at ${low.where}` }) };
}

/** "≤ goal everywhere": the highest value against the goal, said with where it was measured. */
function highestAtMost(target: string, values: ReadonlyArray<{ where: string; value: number | null | undefined }>, goal: number) {
  const high = extreme(values, 'highest');
  return {
    ...atMost(target, high?.value, goal, x),
    ...(high === undefined ? {} : { measured: `highest ${x(high.value)} at ${high.where}` }),
  };
}

/**
 * The sweep's floors for a claim variant against Powertools' records/s, by size: what the library's default
 * (and the README handler with a copying middleware after ours) is held to, where the size is in the run.
 */
export const SWEEP_FLOORS: ReadonlyArray<{ readonly memoryMb: number; readonly atLeast: number }> = [
  { memoryMb: 256, atLeast: 1.2 },
  { memoryMb: 512, atLeast: 1.0 },
  { memoryMb: 1024, atLeast: 1.0 },
  { memoryMb: 1769, atLeast: 0.95 },
];
/** No size below this, whichever the run has. */
export const SWEEP_FLOOR_EVERY_SIZE = 0.9;

/** The variants the sweep's floors hold for, as the targets name them. */
export const SWEEP_TARGET_VARIANTS: ReadonlyArray<{ readonly id: string; readonly name: string }> = [
  { id: DEFAULT_CLAIM, name: 'claim default' },
  { id: DEFAULT_CLAIM_COPY, name: 'claim default + a copying middleware' },
];

const thousands = (mb: number) => mb.toLocaleString('en-US');

export function sweepTargets(sizes: readonly SizeResult[]): TargetCheck[] {
  if (sizes.length === 0) return [];
  const rate = (memoryMb: number, id: string) => at(sizes, memoryMb, id)?.ratios?.recordsPerSecond;
  return SWEEP_TARGET_VARIANTS.flatMap(({ id, name }) => [
    ...SWEEP_FLOORS.map((f) =>
      atLeast(`${thousands(f.memoryMb)} MB: ${name} ≥ ${f.atLeast.toFixed(2)}x Powertools records/s`, rate(f.memoryMb, id), f.atLeast, x),
    ),
    lowestAtLeast(
      `every size: ${name} ≥ ${SWEEP_FLOOR_EVERY_SIZE.toFixed(2)}x Powertools records/s`,
      sizes.map((s) => ({ where: `${thousands(s.memoryMb)} MB`, value: at(sizes, s.memoryMb, id)?.ratios?.recordsPerSecond })),
      SWEEP_FLOOR_EVERY_SIZE,
    ),
  ]);
}

export function coldStartTargets(coldStart: ColdStartFigures | undefined): TargetCheck[] {
  const sizes = coldStart?.sizes ?? [];
  if (sizes.length === 0) return [];
  return [
    highestAtMost(
      "every size, on demand (init at full CPU): the README claim handler's import + first batch ≤ 1.0x Powertools'",
      sizes.map((s) => ({ where: `${s.memoryMb} MB`, value: s.onDemand.initRatio })),
      1.0,
    ),
    highestAtMost(
      "every size, provisioned concurrency (all under the quota): the README claim handler's import + first batch ≤ 1.05x Powertools'",
      sizes.map((s) => ({ where: `${s.memoryMb} MB`, value: s.provisioned.initRatio })),
      1.05,
    ),
  ];
}

export function lmiTargets(lmi: readonly LmiConfigResult[]): TargetCheck[] {
  if (lmi.length === 0) return [];
  const ratios = (id: string) =>
    lmi.map((c) => ({
      where: `${c.vcpus} vCPU × ${c.inFlight} in flight`,
      value: c.variants.find((v) => v.id === id)?.ratios?.recordsPerVcpuSecond,
    }));
  return [
    lowestAtLeast('Lambda Managed Instances: claim default ≥ 1.5x Powertools records per vCPU-second', ratios(DEFAULT_CLAIM), 1.5),
    lowestAtLeast('Lambda Managed Instances: transaction ≥ 2.0x Powertools records per vCPU-second', ratios('ours-transaction'), 2.0),
    lowestAtLeast(
      'Lambda Managed Instances: state machine ≥ 2.0x Powertools (order update) records per vCPU-second',
      ratios('ours-state'),
      2.0,
    ),
  ];
}

export function exactlyOnceTarget(sizes: readonly SizeResult[], lmi: readonly LmiConfigResult[]): TargetCheck {
  const runs = [
    ...sizes.flatMap((s) => s.variants.map((v) => ({ v, where: `${v.id} at ${s.memoryMb} MB` }))),
    ...lmi.flatMap((c) => c.variants.map((v) => ({ v, where: `${v.id} on LMI ${c.vcpus} vCPU × ${c.inFlight}` }))),
  ];
  const problems = runs.filter((r) => r.v.notExactlyOnce !== undefined).map((r) => r.where);
  return {
    target: 'every variant applies every event exactly once in every run (effects read back)',
    measured: problems.length === 0 ? `${runs.length} variant runs, all exactly once` : `not exactly once: ${problems.join(', ')}`,
    met: runs.length === 0 ? null : problems.length === 0,
    shortfall: problems.length === 0 ? undefined : `${problems.length} of ${runs.length}`,
  };
}

export function checkLambdaTargets(
  sizes: readonly SizeResult[],
  lmi: readonly LmiConfigResult[],
  coldStart: ColdStartFigures | undefined,
): TargetCheck[] {
  return [...sweepTargets(sizes), ...coldStartTargets(coldStart), ...lmiTargets(lmi), exactlyOnceTarget(sizes, lmi)];
}
