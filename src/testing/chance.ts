/**
 * Seeded randomness for fault injection. Decisions taken while invocations
 * race cannot draw from one shared sequence without depending on timing, so
 * each decision hashes a label (what is being decided, for which key, which
 * occurrence) with the seed instead: the same seed gives the same decision
 * for the same label whatever the scheduling.
 */

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/** mulberry32: a 32-bit seeded generator, tiny, with good enough spread for picking test cases (not for cryptography). */
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

/** A number in [0, 1) that depends only on `seed` and `label` (FNV-1a of the label, then one mulberry32 step). */
export function chanceOf(seed: number, label: string): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
  }
  return mulberry32(h)();
}

/** Counts occurrences per label, so "the n-th time this happens" can be part of a decision's label. */
export class Occurrences {
  readonly #seen = new Map<string, number>();

  /** Counts one more occurrence of `label`; returns its 1-based number. */
  next(label: string): number {
    const n = (this.#seen.get(label) ?? 0) + 1;
    this.#seen.set(label, n);
    return n;
  }
}
