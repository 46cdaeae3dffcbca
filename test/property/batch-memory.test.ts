/**
 * The interaction matrix's model and invariants (test/support/batch-phases.ts)
 * on random batches, in the unit project: the public SQS middleware on the
 * memory store, no Java. Where the matrix varies one key against fixed
 * neighbours, here up to three keys each have their own stored state, their
 * copies land in random FIFO groups at random positions, and handler
 * failures and bad records mix freely. Each batch is delivered, retried,
 * delivered again whole (after a live owner's lease, and without its
 * dead-lettered records) and compared with the model at every step; no
 * record stalls without a lasting reason; at the end each key's effect has
 * been applied exactly once.
 *
 * More on demand: `FC_SEED=7 MEMORY_BATCH_RUNS=2000 npx vitest run test/property/batch-memory.test.ts`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { badBodyArb } from './arbitraries.js';
import type { PlanRecord } from '../support/batch-matrix-model.js';
import { runScenario } from '../support/batch-phases.js';
import type { QueueKind, SeedState } from '../support/memory-batch.js';
import { seeded } from './seed.js';

const RUNS = Number.parseInt(process.env['MEMORY_BATCH_RUNS'] ?? '', 10) || 100;
const KEYS = ['k0', 'k1', 'k2'] as const;
const STATES: readonly SeedState[] = ['none', 'completed', 'retention-expired', 'live-other-owner', 'crashed-owner', 'failed'];

const caseArb = fc.record({
  queue: fc.constantFrom<QueueKind>('standard', 'fair', 'fifo', 'fifo'),
  claims: fc.constantFrom('batch' as const, 'pipelined' as const),
  // The context's memory size: the claim strategy's requests, batched below 512 MB, per-record from it.
  memoryMb: fc.constantFrom(128, 1769),
  release: fc.constantFrom('delete' as const, 'mark-failed' as const),
  states: fc.tuple(...KEYS.map(() => fc.constantFrom(...STATES))),
  records: fc.array(
    fc.record({
      key: fc.integer({ min: 0, max: KEYS.length - 1 }),
      v: fc.integer({ min: 1, max: 2 }),
      group: fc.constantFrom('A', 'B'),
      throws: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
      bad: badBodyArb,
    }),
    { minLength: 1, maxLength: 7 },
  ),
});

describe('random SQS batches on the memory store against the interaction model', () => {
  it(
    `outcomes, runs, invariants and exactly-once effects over every redelivery (${RUNS} batches)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const plan = c.records.map(
            (r, i): PlanRecord => ({
              id: r.bad === undefined ? `${KEYS[r.key]}#${i}` : `BAD#${i}`,
              key: r.bad === undefined ? KEYS[r.key] : undefined,
              v: r.v,
              group: r.group,
              throws: r.throws,
              ...(r.bad === undefined ? {} : { bad: r.bad }),
            }),
          );
          // A FAILED record is what release 'mark-failed' leaves; the 'delete' store has none to find.
          const seeds = new Map(
            KEYS.map((k, i) => [k, c.states[i] === 'failed' && c.release === 'delete' ? 'none' : (c.states[i] as SeedState)]),
          );
          const label = `${c.queue} | ${c.claims} claims at ${c.memoryMb} MB | release ${c.release} | ${JSON.stringify(Object.fromEntries(seeds))}`;
          const { queue, claims, release, memoryMb } = c;
          const { liveness } = await runScenario({ label, queue, claims, release, memoryMb, plan, seeds });
          // Nothing may stall (the cross-group hold-back of test/unit/batch/fifo-cross-group.test.ts included).
          expect(liveness.map((p) => p.message)).toEqual([]);
        }),
        seeded(RUNS),
      );
    },
    30_000 + RUNS * 25,
  );
});
