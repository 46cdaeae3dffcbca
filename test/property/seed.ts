/**
 * Every property runs from one fixed seed, so a failure found once is found
 * again on the next run (fast-check's report names the seed and the path of
 * the shrunk counterexample). `FC_SEED=<int>` explores another seed.
 */
import type { Parameters } from 'fast-check';

const fromEnv = Number.parseInt(process.env['FC_SEED'] ?? '', 10);

/** The seed of this run. */
export const SEED = Number.isInteger(fromEnv) ? fromEnv : 20_261_129;

/** Parameters for `fc.assert`: the fixed seed and a modest number of runs (the suite must stay fast). */
export function seeded<T>(numRuns: number): Parameters<T> {
  return { seed: SEED, numRuns };
}
