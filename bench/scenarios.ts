/**
 * The scenarios: the same workload for both contenders, differing in how
 * many records are re-deliveries of completed keys, the cache, and whether
 * the handler writes a business item.
 */

/** One scenario of the bench. */
export interface Scenario {
  readonly id: string;
  readonly title: string;
  /** Share of each batch (0..1) that re-delivers keys completed just before. */
  readonly duplicateShare: number;
  /** Warm-container cache on both sides (ours `cache`, Powertools `useLocalCache`). */
  readonly cache: boolean;
  /** Write one business item per record (ours: `strategy: 'transaction'`). */
  readonly businessWrite: boolean;
  /** What the comparison is, in one line. */
  readonly note: string;
}

/** The default scenario list, in print order. */
export const scenarios: readonly Scenario[] = [
  {
    id: 'fresh',
    title: '(a) fresh keys',
    duplicateShare: 0,
    cache: false,
    businessWrite: false,
    note: 'claim strategy vs makeIdempotent, every key new',
  },
  {
    id: 'duplicates',
    title: '(b) all duplicates',
    duplicateShare: 1,
    cache: false,
    businessWrite: false,
    note: 'every key already COMPLETED, caches off (both defaults)',
  },
  {
    id: 'mixed',
    title: '(c) mixed 50/50',
    duplicateShare: 0.5,
    cache: false,
    businessWrite: false,
    note: 'half the keys already COMPLETED, caches off',
  },
  {
    id: 'duplicates-cached',
    title: '(d) duplicates, warm cache',
    duplicateShare: 1,
    cache: true,
    businessWrite: false,
    note: 'as (b), ours cache: { maxEntries } vs Powertools useLocalCache, both 1000 entries, warmed in the same container',
  },
  {
    id: 'transaction',
    title: '(e) + one business write',
    duplicateShare: 0,
    cache: false,
    businessWrite: true,
    note: "ours strategy 'transaction' (tx.put) vs makeIdempotent + PutItem in the record handler",
  },
];
