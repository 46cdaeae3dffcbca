/**
 * Seeded randomness, so `--seed` gives every variant, and every run with that
 * seed, the very same workload. The generator is the testing kit's mulberry32
 * (the chaos run and the local run use it too). Not for anything security related.
 */
export { mulberry32 as seededRandom } from '../src/testing/chance.js';

/** An integer in [0, n) from `random`. */
export function randomInt(random: () => number, n: number): number {
  return Math.floor(random() * n);
}
