/**
 * The heart of the SQS middleware (admission, same-key copies, FIFO lanes,
 * settle; batch vs pipelined claims) as an interaction matrix, on the public
 * API: `sqsIdempotency` + `eachRecord` under Middy, a `MemoryIdempotencyStore`
 * and a `ManualClock`. Combinations of
 *
 * - a business key K delivered 1–3 times in one batch (other message ids),
 *   with the same or another payload;
 * - what the store holds for K before the batch: nothing (release 'delete' or
 *   'mark-failed'), COMPLETED, COMPLETED past its retention, a live claim of
 *   another owner, a crashed owner's claim whose lease has passed, FAILED;
 * - a standard queue, a "fair" standard queue (a group id that orders
 *   nothing), FIFO with one group, FIFO with K's copies in two groups;
 * - no failure, the handler throwing for the first / middle / last record or
 *   for K's first copy, or a bad record (no key, a body that is not JSON) at
 *   the first / middle / last position;
 * - claims batched or pipelined;
 *
 * are delivered, retried, delivered again whole (and after the other owner's
 * lease, and without their dead-lettered records) by
 * ../../support/batch-phases.ts, which compares each delivery with the model
 * (../../support/batch-matrix-model.ts) and checks the invariants
 * (../../support/batch-invariants.ts), including liveness: after the retry
 * and a redelivery, a record still returned must have a lasting reason
 * (invalid, behind a returned record of its group, its key held elsewhere).
 * interaction-cases.test.ts pins the model and the library to hand-checked
 * cases; fifo-cross-group.test.ts holds the one bug the matrix found (fixed).
 *
 * `npm run test:unit` runs the slices below (915 combinations);
 * `MATRIX=full npx vitest run test/unit/batch/interaction-matrix.test.ts`
 * runs the full product of every dimension (about 4200).
 */
import { describe, expect, it } from 'vitest';
import type { ClaimsMode } from '../../support/strategy.js';
import type { Bad, PlanRecord } from '../../support/batch-matrix-model.js';
import { runScenario, type Scenario } from '../../support/batch-phases.js';
import type { QueueKind, SeedState } from '../../support/memory-batch.js';

const FULL = process.env['MATRIX'] === 'full';

const ALL_PATTERNS: readonly (readonly number[])[] = [[1], [2], [1, 1], [1, 2], [2, 1], [1, 1, 1], [1, 2, 1]];
// A lone changed payload ([2]) is the first copy of [2, 1]; three same copies ([1, 1, 1]) add nothing to [1, 2, 1]'s lanes.
const PATTERNS = FULL ? ALL_PATTERNS : ALL_PATTERNS.filter((p) => p.join() !== '2' && p.join() !== '1,1,1');

type StoredCase = { readonly name: string; readonly seed: SeedState; readonly release: 'delete' | 'mark-failed' };
const STORED: readonly StoredCase[] = [
  { name: 'none', seed: 'none', release: 'delete' },
  { name: 'none (mark-failed)', seed: 'none', release: 'mark-failed' },
  { name: 'COMPLETED', seed: 'completed', release: 'delete' },
  { name: 'COMPLETED past retention', seed: 'retention-expired', release: 'delete' },
  { name: 'IN_PROGRESS of a live owner', seed: 'live-other-owner', release: 'delete' },
  { name: 'IN_PROGRESS of a crashed owner', seed: 'crashed-owner', release: 'delete' },
  { name: 'FAILED (mark-failed)', seed: 'failed', release: 'mark-failed' },
];

type QueueCase = { readonly name: string; readonly queue: QueueKind; readonly twoGroups: boolean };
const STANDARD: QueueCase = { name: 'standard', queue: 'standard', twoGroups: true };
const FAIR: QueueCase = { name: 'fair (standard + group id)', queue: 'fair', twoGroups: true };
const FIFO_ONE: QueueCase = { name: 'FIFO, one group', queue: 'fifo', twoGroups: false };
const FIFO_TWO: QueueCase = { name: 'FIFO, two groups', queue: 'fifo', twoGroups: true };

type At = 'first' | 'middle' | 'last';
type Failure =
  | { readonly name: string; readonly kind: 'none' }
  | { readonly name: string; readonly kind: 'throw'; readonly at: At | 'K' }
  | { readonly name: string; readonly kind: 'bad'; readonly bad: Bad; readonly at: At };
const bad = (kind: Bad, at: At): Failure => ({ name: `${kind} record at ${at}`, kind: 'bad', bad: kind, at });
const FAILURES: readonly Failure[] = [
  { name: 'no failure', kind: 'none' },
  ...(['first', 'middle', 'last', 'K'] as const).map((at) => ({ name: `handler throws at ${at}`, kind: 'throw' as const, at })),
  // Both kinds of bad record are found before any claim, the same way: one kind per position (both in the full run).
  ...(FULL
    ? (['first', 'middle', 'last'] as const).flatMap((at) => [bad('nojson', at), bad('nokey', at)])
    : [bad('nojson', 'first'), bad('nokey', 'middle'), bad('nojson', 'last')]),
];

/**
 * K's copies between two other keys: [O1, K#1, O2, K#2, K#3]. With two groups,
 * K#1 and K#3 are in group A with O1, K#2 in group B with O2.
 */
function layout(pattern: readonly number[], twoGroups: boolean): PlanRecord[] {
  const group = (g: 'A' | 'B') => (twoGroups ? g : 'A');
  const k = (n: number, g: 'A' | 'B'): PlanRecord[] =>
    pattern[n] === undefined ? [] : [{ id: `K#${n + 1}`, key: 'K', v: pattern[n] as number, group: group(g), throws: false }];
  return [
    { id: 'O1', key: 'O1', v: 1, group: group('A'), throws: false },
    ...k(0, 'A'),
    { id: 'O2', key: 'O2', v: 1, group: group('B'), throws: false },
    ...k(1, 'B'),
    ...k(2, 'A'),
  ];
}

const positionOf = (at: At, length: number): number => (at === 'first' ? 0 : at === 'middle' ? Math.floor(length / 2) : length - 1);

/** The batch with the failure applied, or undefined when it repeats another failure of the list. */
function withFailure(plan: PlanRecord[], f: Failure, twoGroups: boolean): PlanRecord[] | undefined {
  if (f.kind === 'none') return plan;
  if (f.kind === 'throw') {
    const at = f.at === 'K' ? plan.findIndex((p) => p.id === 'K#1') : positionOf(f.at, plan.length);
    // Throwing at K's first copy is "middle" when K has one copy: leave the repeat out.
    if (f.at === 'K' && at === positionOf('middle', plan.length)) return undefined;
    return plan.map((p, i) => (i === at ? { ...p, throws: true } : p));
  }
  const at = f.at === 'last' ? plan.length : positionOf(f.at, plan.length);
  const group = twoGroups && f.at === 'middle' ? 'B' : 'A';
  const record: PlanRecord = { id: `BAD-${f.bad}`, key: undefined, v: 1, bad: f.bad, group, throws: false };
  return [...plan.slice(0, at), record, ...plan.slice(at)];
}

/** A slice of the matrix: the full product of the dimensions it names. */
interface Slice {
  readonly queue: QueueCase;
  readonly claims: ClaimsMode;
  readonly stored: readonly StoredCase[];
  readonly patterns: readonly (readonly number[])[];
  readonly failures: readonly Failure[];
  /** The store without its batched calls (claimMany, completeMany): the same outcomes, each call alone. */
  readonly unbatched?: true;
}

// Past retention, FAILED, and none under 'mark-failed' are free to claim as none and a crashed owner's claim are.
const ALSO_FREE = new Set(['COMPLETED past retention', 'FAILED (mark-failed)', 'none (mark-failed)']);
const CORE_STORED = STORED.filter((x) => !ALSO_FREE.has(x.name));
// With 'mark-failed', a failure in the batch leaves FAILED records that the retry takes over.
const FIVE_STORED = STORED.filter((x) => !ALSO_FREE.has(x.name) || x.name === 'none (mark-failed)');
const pick = (names: readonly string[]) => FAILURES.filter((f) => names.includes(f.name));

/**
 * By default, the full product for the standard queue on batch claims; for
 * FIFO with K in two groups (a copy in K's first group and one in another)
 * and for pipelined claims on the standard queue, the product over the stored
 * states that differ for a claim; FIFO with one group over the four that
 * differ most; pipelined FIFO (claimed as a batch either way: docs/sqs.md) on
 * three copies; the fair queue (its group id must order nothing) on three
 * failures. The whole product (MATRIX=full) took a minute here, too long for
 * every run of the unit project.
 */
const SLICES: readonly Slice[] = FULL
  ? [STANDARD, FAIR, FIFO_ONE, FIFO_TWO].flatMap((queue) =>
      (['batch', 'pipelined'] as const).map((claims) => ({ queue, claims, stored: STORED, patterns: PATTERNS, failures: FAILURES })),
    )
  : [
      { queue: STANDARD, claims: 'batch', stored: STORED, patterns: PATTERNS, failures: FAILURES },
      { queue: FIFO_TWO, claims: 'batch', stored: FIVE_STORED, patterns: PATTERNS, failures: FAILURES },
      { queue: STANDARD, claims: 'pipelined', stored: FIVE_STORED, patterns: PATTERNS, failures: FAILURES },
      { queue: FIFO_ONE, claims: 'batch', stored: CORE_STORED, patterns: PATTERNS, failures: FAILURES },
      { queue: FIFO_TWO, claims: 'pipelined', stored: FIVE_STORED, patterns: [[1, 2, 1]], failures: FAILURES },
      {
        queue: FAIR,
        claims: 'batch',
        stored: CORE_STORED,
        patterns: PATTERNS,
        failures: pick(['handler throws at middle', 'handler throws at K', 'nokey record at middle']),
      },
      // The memory store has the batched calls, so the slices above run them; these run the same model on a store without them.
      { queue: STANDARD, claims: 'batch', stored: CORE_STORED, patterns: PATTERNS, failures: FAILURES, unbatched: true },
      { queue: STANDARD, claims: 'pipelined', stored: CORE_STORED, patterns: PATTERNS, failures: FAILURES, unbatched: true },
      { queue: FIFO_TWO, claims: 'batch', stored: CORE_STORED, patterns: [[1, 2, 1]], failures: FAILURES, unbatched: true },
    ];

function combinations(slice: Slice): Scenario[] {
  const all: Scenario[] = [];
  for (const stored of slice.stored)
    for (const pattern of slice.patterns)
      for (const failure of slice.failures) {
        const plan = withFailure(layout(pattern, slice.queue.twoGroups), failure, slice.queue.twoGroups);
        if (plan === undefined) continue;
        const label = `${slice.queue.name} | ${slice.claims} claims${slice.unbatched === true ? ', unbatched store' : ''} | K stored ${stored.name} | K payloads [${pattern.join(',')}] | ${failure.name}`;
        all.push({
          label,
          queue: slice.queue.queue,
          claims: slice.claims,
          release: stored.release,
          plan,
          seeds: new Map([['K', stored.seed]]),
          ...(slice.unbatched === true ? { unbatched: true } : {}),
        });
      }
  return all;
}

describe('interaction matrix: SQS batches through sqsIdempotency + eachRecord on the memory store', () => {
  for (const slice of SLICES) {
    const scenarios = combinations(slice);
    describe(`${slice.queue.name}, ${slice.claims} claims${slice.unbatched === true ? ', unbatched store' : ''} (${scenarios.length} combinations)`, () => {
      it('holds the full product of its dimensions (less throw-at-K where K#1 is the middle record)', () => {
        const throwAtK = slice.failures.some((f) => f.name === 'handler throws at K') ? 1 : 0;
        const repeats = slice.patterns.filter((p) => p.length === 1).length * throwAtK;
        expect(scenarios).toHaveLength(slice.stored.length * (slice.patterns.length * slice.failures.length - repeats));
        expect(new Set(scenarios.map((c) => c.label)).size).toBe(scenarios.length);
      });
      for (const c of scenarios)
        it(c.label.split(' | ').slice(2).join(' | '), async () => {
          const { liveness } = await runScenario(c);
          expect(liveness.map((p) => p.message)).toEqual([]);
          if (process.env['LIVENESS_LOG'] !== undefined) for (const p of liveness) console.log('LIVENESS', p.message);
        });
    });
  }
});
