/**
 * Properties of FIFO group failure propagation (src/batch/schedule.ts): before
 * the handler, `heldBack` holds back the records behind one already known to
 * come back; while it runs, `runLanes` stops a group at its first failure.
 * Either way: once a record of group G fails, every later record of G comes
 * back, no record of another group is affected, and order inside G is kept.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { heldBack, runLanes, type Standing } from '../../src/batch/schedule.js';
import { seeded } from './seed.js';

interface Item {
  readonly n: number;
  /** FIFO message group; undefined on a standard queue. */
  readonly lane: string | undefined;
  readonly standing: Standing;
  /** Whether the handler fails on it (runLanes). */
  readonly fails: boolean;
}

const laneArb = fc.option(fc.constantFrom('A', 'B', 'C'), { nil: undefined, freq: 4 });
const batchArb: fc.Arbitrary<Item[]> = fc
  .array(fc.record({ lane: laneArb, standing: fc.constantFrom<Standing>('blocks', 'passes', 'waits', 'waits'), fails: fc.boolean() }), {
    maxLength: 20,
  })
  .map((items) => items.map((item, n) => ({ ...item, n })));

const laneOf = (i: Item) => i.lane;
const standing = (i: Item) => i.standing;

describe('heldBack (before the handler)', () => {
  it('holds back exactly the waiting records behind a blocking record of their own group', () => {
    fc.assert(
      fc.property(batchArb, (items) => {
        const held = heldBack(items, laneOf, standing);
        expect(held).toHaveLength(items.length);
        items.forEach((item, i) => {
          const blockedBefore = items.slice(0, i).some((e) => e.lane !== undefined && e.lane === item.lane && e.standing === 'blocks');
          expect(held[i]).toBe(item.lane !== undefined && item.standing === 'waits' && blockedBefore);
        });
      }),
      seeded(300),
    );
  });

  it('a group is decided by its own records only: other groups and standard records never change it', () => {
    fc.assert(
      fc.property(batchArb, fc.constantFrom('A', 'B', 'C'), (items, g) => {
        const held = heldBack(items, laneOf, standing);
        const own = items.filter((i) => i.lane === g);
        const alone = heldBack(own, laneOf, standing);
        expect(items.flatMap((item, i) => (item.lane === g ? [held[i]] : []))).toEqual(alone);
      }),
      seeded(300),
    );
  });

  it('a standard queue (no groups) holds nothing back', () => {
    fc.assert(
      fc.property(batchArb, (items) => {
        const standard = items.map((i) => ({ ...i, lane: undefined }));
        expect(heldBack(standard, laneOf, standing).every((h) => !h)).toBe(true);
      }),
      seeded(100),
    );
  });
});

describe('runLanes (while the handler runs), under every interleaving fast-check schedules', () => {
  it('each group runs in order up to its first failure, the rest is skipped in order, other groups run on; concurrency holds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), batchArb, fc.integer({ min: 1, max: 5 }), async (s, items, concurrency) => {
        const ran: Item[] = [];
        const skipped: Item[] = [];
        let running = 0;
        let peak = 0;
        const done = runLanes(items, {
          concurrency,
          laneOf,
          run: async (item) => {
            running += 1;
            peak = Math.max(peak, running);
            ran.push(item);
            // The scheduler decides when each run finishes, so lanes interleave in every order it picks.
            await s.schedule(Promise.resolve(), `run ${item.n}`);
            running -= 1;
            return !item.fails;
          },
          skip: (item) => skipped.push(item),
        });
        await s.waitFor(done);

        expect(peak).toBeLessThanOrEqual(concurrency);
        expect([...ran, ...skipped].map((i) => i.n).sort((a, b) => a - b)).toEqual(items.map((i) => i.n));
        for (const lane of ['A', 'B', 'C']) {
          const own = items.filter((i) => i.lane === lane);
          const firstFailure = own.findIndex((i) => i.fails);
          const cut = firstFailure === -1 ? own.length : firstFailure + 1;
          expect(ran.filter((i) => i.lane === lane)).toEqual(own.slice(0, cut));
          expect(skipped.filter((i) => i.lane === lane)).toEqual(own.slice(cut));
        }
        // Records without a group are lanes of their own: a failure never skips anything else.
        expect(skipped.every((i) => i.lane !== undefined)).toBe(true);
      }),
      seeded(150),
    );
  });
});
