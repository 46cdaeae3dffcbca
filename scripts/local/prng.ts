/**
 * Seeded randomness for the local run, so a seed reproduces the same
 * workload, the same duplicates and the same injected failures.
 */

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/** mulberry32: 32-bit state, good enough spread for picking test cases, tiny. */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A number in [0, 1) that depends only on the seed and a label. Decisions
 * taken while messages race (which batch, which poller) cannot consume a
 * shared sequence without depending on timing; hashing the label does not.
 */
export function chanceOf(seed: number, label: string): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  }
  return mulberry32(h)();
}

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
