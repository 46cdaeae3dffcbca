/**
 * Seeded randomness for the local run, so a seed reproduces the same
 * workload, the same duplicates and the same injected failures.
 */

// The generator and the label hash live in the testing kit (fault injection uses them too).
import type { Random } from '../../src/testing/chance.js';

export { chanceOf, mulberry32, type Random } from '../../src/testing/chance.js';

/** Integer in [min, max]. */
export function intBetween(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** A new array with the items in random order (Fisher–Yates). */
export function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}

/** `count` distinct items picked at random (all of them when count ≥ length). */
export function sample<T>(random: Random, items: readonly T[], count: number): T[] {
  return shuffled(random, items).slice(0, Math.max(0, Math.min(count, items.length)));
}
