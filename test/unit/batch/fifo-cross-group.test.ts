/**
 * The bug the interaction matrix found (its liveness check flagged it as
 * `heldBackCopy`), now fixed: on a FIFO queue, a key whose copies led two
 * message groups of one batch was claimed by both at once; the first claim
 * won. When the winner was then held back in ITS group (behind a bad record,
 * or a record whose handler fails), its claim was released unrun, but the
 * copy in the OTHER group had already been decided "in progress" from it, and
 * held back the rest of that group at every delivery, until it was
 * dead-lettered with the blocker without ever running.
 *
 * The rule now (docs/sqs.md, FIFO; src/batch/cross-group.ts): the key is
 * claimed once, by its first copy; the groups sharing it run as one lane in
 * batch order, each still stopping at its own first returned record; a copy
 * in another group follows the first copy, or, when that was held back
 * unrun, claims the key afresh and runs.
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

describe('FIFO: a copy held back in one group does not block its key in another', () => {
  // Was: K#2 (group A) 'in-progress' at every delivery, from K#1's claim, which BAD holds back in group B.
  it('a bad record at the head of group B: K#2 in group A runs (minimal repro: [BAD@B, K#1@B, K#2@A])', async () => {
    const { effects, outcomes } = await deliverRepeatedly([r('BAD', 'B', { bad: 'nojson' }), r('K#1', 'B'), r('K#2', 'A')], 3);
    expect(outcomes[0]).toEqual({ BAD: 'invalid', 'K#1': 'not-started', 'K#2': 'completed' });
    expect(effects).toEqual({ K: 1 });
  });

  // Was: group A ([K#2, X]) came back whole at every delivery while P kept failing in group B.
  it('a poison record in group B (its handler always throws): group A still runs ([P@B, K#1@B, K#2@A, X@A])', async () => {
    const { effects } = await deliverRepeatedly([r('P', 'B'), r('K#1', 'B'), r('K#2', 'A'), r('X', 'A')], 3, ['P']);
    expect(effects).toEqual({ K: 1, X: 1 });
  });

  it('control: the same batch with K in group B only leaves group A free', async () => {
    const { effects, outcomes } = await deliverRepeatedly([r('BAD', 'B', { bad: 'nojson' }), r('K#1', 'B'), r('X', 'A')], 1);
    expect(outcomes[0]).toEqual({ BAD: 'invalid', 'K#1': 'not-started', X: 'completed' });
    expect(effects).toEqual({ X: 1 });
  });

  it('another payload in group A is judged by its own claim, not against the held-back copy', async () => {
    const { effects, outcomes } = await deliverRepeatedly([r('BAD', 'B', { bad: 'nojson' }), r('K#1', 'B'), r('K#2', 'A', { v: 2 })], 3);
    expect(outcomes[0]).toEqual({ BAD: 'invalid', 'K#1': 'not-started', 'K#2': 'completed' });
    // Later deliveries: K#1's claim finds K#2's record (another payload: invalid, as a lone K#1 would be); K#2 a duplicate.
    expect(outcomes[2]).toEqual({ BAD: 'invalid', 'K#1': 'invalid', 'K#2': 'duplicate' });
    expect(effects).toEqual({ K: 1 });
  });

  it('the copy that runs second in its lane follows the first: K#1, held back behind BAD, is a duplicate of K#2', async () => {
    const { effects, outcomes } = await deliverRepeatedly([r('BAD', 'B', { bad: 'nojson' }), r('K#2', 'A'), r('K#1', 'B')], 1);
    expect(outcomes[0]).toEqual({ BAD: 'invalid', 'K#2': 'completed', 'K#1': 'duplicate' });
    expect(effects).toEqual({ K: 1 });
  });
});
