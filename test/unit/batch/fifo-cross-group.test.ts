/**
 * The bug the interaction matrix found (its liveness check flags it as
 * `heldBackCopy`): on a FIFO queue, a key whose copies lead two message
 * groups of one batch is claimed by both at once; the first claim wins. When
 * the winner is then held back in ITS group (behind a bad record, or a record
 * whose handler fails), its claim is released unrun, but the copy in the
 * OTHER group has already been decided "in progress" from it, and holds back
 * the rest of that group. Every redelivery repeats this while the blocker
 * stays, so a group with no failure of its own never progresses: its valid
 * records burn a receive each time, in step with the blocker, and are
 * dead-lettered with it without ever running.
 *
 * Expected (DESIGN.md: one bad record never fails the batch, FIFO groups keep
 * order): a claim held back unrun must not stand in the way of its key's copy
 * in another group; that copy runs (or, at the least, its group is not
 * blocked at every delivery by another group's failure).
 *
 * The `it.fails` cases below assert the expected behaviour and fail today;
 * the plain cases are the controls: the same batches with the key in one
 * group only, or in the other order, run as expected.
 */
import { describe, expect, it } from 'vitest';
import type { PlanRecord } from '../../support/batch-matrix-model.js';
import { rig } from '../../support/memory-batch.js';

const r = (id: string, group: string, extra: Partial<PlanRecord> = {}): PlanRecord => ({
  id,
  key: extra.bad === undefined ? id.split('#')[0] : undefined,
  v: 1,
  group,
  throws: false,
  ...extra,
});

/** Delivers the whole batch `times` times (a FIFO queue redelivers everything returned, in order); the last delivery. */
async function deliverRepeatedly(plan: readonly PlanRecord[], times: number, poison: readonly string[] = []) {
  const t = rig({ queue: 'fifo' });
  for (const id of poison) t.throwing.add(id);
  const records = plan.map((p) => t.recordOf(p));
  const outcomes: Record<string, string>[] = [];
  for (let i = 0; i < times; i++) {
    const d = await t.deliver(records);
    outcomes.push(Object.fromEntries(d.line.records.map((x) => [x.messageId, x.outcome])));
  }
  return { effects: Object.fromEntries(t.effects), outcomes };
}

describe('FIFO: a copy held back in one group blocks its key in another (bug)', () => {
  // Fails today: K#2 (group A) is 'in-progress' at every delivery, found K#1's claim, which BAD holds back in group B.
  it.fails('a bad record at the head of group B: K#2 in group A runs (minimal repro: [BAD@B, K#1@B, K#2@A])', async () => {
    const { effects, outcomes } = await deliverRepeatedly([r('BAD', 'B', { bad: 'nojson' }), r('K#1', 'B'), r('K#2', 'A')], 3);
    expect(outcomes[0]).toEqual({ BAD: 'invalid', 'K#1': 'not-started', 'K#2': 'completed' });
    expect(effects).toEqual({ K: 1 });
  });

  // Fails today: group A ([K#2, X]) comes back whole at every delivery while P keeps failing in group B.
  it.fails('a poison record in group B (its handler always throws): group A still runs ([P@B, K#1@B, K#2@A, X@A])', async () => {
    const { effects } = await deliverRepeatedly([r('P', 'B'), r('K#1', 'B'), r('K#2', 'A'), r('X', 'A')], 3, ['P']);
    expect(effects).toEqual({ K: 1, X: 1 });
  });

  it('control: the same batch with K in group B only leaves group A free', async () => {
    const { effects, outcomes } = await deliverRepeatedly([r('BAD', 'B', { bad: 'nojson' }), r('K#1', 'B'), r('X', 'A')], 1);
    expect(outcomes[0]).toEqual({ BAD: 'invalid', 'K#1': 'not-started', X: 'completed' });
    expect(effects).toEqual({ X: 1 });
  });

  it("control: K's copy in group A first wins its claim and runs", async () => {
    const { effects, outcomes } = await deliverRepeatedly([r('BAD', 'B', { bad: 'nojson' }), r('K#2', 'A'), r('K#1', 'B')], 1);
    expect(outcomes[0]).toEqual({ BAD: 'invalid', 'K#2': 'completed', 'K#1': 'in-progress' });
    expect(effects).toEqual({ K: 1 });
  });
});
