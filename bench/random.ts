/**
 * A small seeded pseudo-random generator (mulberry32), so `--seed` gives
 * every variant, and every run with that seed, the very same workload.
 * Not for anything security related.
 */

/** Returns a function yielding floats in [0, 1) determined by `seed`. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An integer in [0, n) from `random`. */
export function randomInt(random: () => number, n: number): number {
  return Math.floor(random() * n);
}
