/**
 * Hand-checked interactions of the SQS middleware on the memory store: each
 * case states its expected outcomes literally, and checks them against the
 * library AND against the model the interaction matrix computes its
 * expectations from (../../support/batch-matrix-model.ts), so the model
 * cannot drift into agreeing with a wrong library. Then two model-free
 * checks: a bad record changes nothing for the others (standard queue) or
 * for anything outside its group's tail (FIFO); and the matrix's invariant
 * checks do fail on a doctored delivery.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimsMode } from '../../support/strategy.js';
import { invariantProblems, observed } from '../../support/batch-invariants.js';
import { runModel, type PlanRecord, type Predicted, type Stored } from '../../support/batch-matrix-model.js';
import { seedAll } from '../../support/batch-phases.js';
import { CONSUMER, OTHER_OWNER_LEASE_MS, rig, storedOf, type QueueKind, type Rig, type SeedState } from '../../support/memory-batch.js';

/** A record of a hand-written plan: `id` (key = the part before '#'), payload version, group, throws. */
function rec(id: string, options: { v?: number; group?: string; throws?: boolean; bad?: 'nojson' | 'nokey' } = {}): PlanRecord {
  const key = options.bad === undefined ? id.split('#')[0] : undefined;
  return {
    id,
    key,
    v: options.v ?? 1,
    group: options.group,
    throws: options.throws ?? false,
    ...(options.bad ? { bad: options.bad } : {}),
  };
}

const completed: Predicted = { kind: 'completed' };
const duplicate: Predicted = { kind: 'duplicate' };
const inProgress: Predicted = { kind: 'in-progress' };
const failed: Predicted = { kind: 'failed', error: 'Error' };
const mismatch: Predicted = { kind: 'invalid', error: 'PayloadMismatchError' };
const groupFailed: Predicted = { kind: 'not-started', reason: 'group-failed' };
const sameKeyFailed: Predicted = { kind: 'not-started', reason: 'same-key-failed' };

interface Case {
  readonly queue?: QueueKind;
  readonly claims?: ClaimsMode;
  readonly release?: 'delete' | 'mark-failed';
  readonly seeds?: Record<string, SeedState>;
}

/** Delivers `plan` (groups only count on FIFO) and checks library and model against `expected` and `returned`. */
async function check(r: Rig, c: Case, plan: readonly PlanRecord[], expected: readonly Predicted[], stored: Map<string, Stored>) {
  const fifo = c.queue === 'fifo';
  const modelPlan = plan.map((p) => (fifo ? p : { ...p, group: undefined }));
  const model = runModel(modelPlan, stored);
  expect(model.outcomes, 'the model').toEqual(expected);
  r.throwing.clear();
  for (const p of plan) if (p.throws) r.throwing.add(p.id);
  const d = await r.deliver(plan.map((p) => r.recordOf(p)));
  expect(observed(d), 'the library').toEqual(expected);
  const acked = new Set(['completed', 'duplicate']);
  expect(d.failed).toEqual(plan.filter((_, i) => !acked.has(expected[i]?.kind ?? '')).map((p) => p.id));
  return { d, after: new Map(model.after) };
}

async function setUp(c: Case) {
  const r = rig({ queue: c.queue ?? 'standard', claims: c.claims ?? 'batch', release: c.release ?? 'delete' });
  const seeds = new Map(Object.entries(c.seeds ?? {}));
  await seedAll(r, seeds);
  return { r, stored: new Map([...seeds].map(([k, s]) => [k, storedOf(s)] as const)) };
}

describe('hand-checked interactions (library and model)', () => {
  it('standard, K COMPLETED: copies v1, v2, v1 are duplicate, mismatch, duplicate (judged against the stored record); nothing runs', async () => {
    const c: Case = { seeds: { K: 'completed' } };
    const { r, stored } = await setUp(c);
    const { d } = await check(r, c, [rec('K#1'), rec('K#2', { v: 2 }), rec('K#3')], [duplicate, mismatch, duplicate], stored);
    expect(d.calls).toEqual([]);
    expect(r.effects.size).toBe(0);
  });

  it('standard, K held by a live owner: returned at every delivery until the lease passes, then applied once', async () => {
    const c: Case = { seeds: { K: 'live-other-owner' } };
    const { r, stored } = await setUp(c);
    const plan = [rec('K#1'), rec('O1')];
    let { after } = await check(r, c, plan, [inProgress, completed], stored);
    ({ after } = await check(r, c, plan, [inProgress, duplicate], after));
    r.clock.advance(OTHER_OWNER_LEASE_MS - 1);
    ({ after } = await check(r, c, plan, [inProgress, duplicate], after));
    r.clock.advance(1);
    await check(r, c, plan, [completed, duplicate], new Map([...after].filter(([k]) => k !== 'K')));
    expect(Object.fromEntries(r.effects)).toEqual({ K: 1, O1: 1 });
  });

  it('FIFO, one group: the handler throws at K#1: the rest of the group comes back unrun; the retry runs it in order', async () => {
    const c: Case = { queue: 'fifo' };
    const { r, stored } = await setUp(c);
    const plan = [
      rec('O1', { group: 'A' }),
      rec('K#1', { group: 'A', throws: true }),
      rec('O2', { group: 'A' }),
      rec('K#2', { group: 'A' }),
    ];
    const first = await check(r, c, plan, [completed, failed, groupFailed, sameKeyFailed], stored);
    expect(first.d.calls).toEqual(['O1', 'K#1']);
    const retry = plan.slice(1).map((p) => ({ ...p, throws: false }));
    const second = await check(r, c, retry, [completed, completed, duplicate], first.after);
    expect(second.d.calls).toEqual(['K#1', 'O2']);
    expect(Object.fromEntries(r.effects)).toEqual({ O1: 1, K: 1, O2: 1 });
  });

  it('FIFO, two groups: K first in A and in B: claimed once, by the first copy; the copy in B follows it', async () => {
    const c: Case = { queue: 'fifo' };
    const { r, stored } = await setUp(c);
    const plan = [rec('K#1', { group: 'A' }), rec('K#2', { group: 'B' }), rec('O2', { group: 'B' })];
    const first = await check(r, c, plan, [completed, duplicate, completed], stored);
    await check(r, c, plan.slice(1), [duplicate, duplicate], first.after);
    expect(Object.fromEntries(r.effects)).toEqual({ K: 1, O2: 1 });
  });

  it('FIFO, K COMPLETED: its copy is acknowledged behind a failure in its group (a known duplicate runs nothing)', async () => {
    const c: Case = { queue: 'fifo', seeds: { K: 'completed' } };
    const { r, stored } = await setUp(c);
    const plan = [rec('O1', { group: 'A', throws: true }), rec('K#1', { group: 'A' }), rec('O2', { group: 'A' })];
    await check(r, c, plan, [failed, duplicate, groupFailed], stored);
  });

  it('FIFO: a copy of a key completed earlier in this batch is acknowledged behind a failure (decided from its first copy)', async () => {
    const c: Case = { queue: 'fifo' };
    const { r, stored } = await setUp(c);
    const plan = [rec('K#1', { group: 'A' }), rec('O1', { group: 'A', throws: true }), rec('K#2', { group: 'A' })];
    const { d } = await check(r, c, plan, [completed, failed, duplicate], stored);
    expect(d.calls).toEqual(['K#1', 'O1']);
  });

  it("a crashed owner's claim is taken over once its lease passed: applied once, its attempts counted", async () => {
    const c: Case = { seeds: { K: 'crashed-owner' } };
    const { r, stored } = await setUp(c);
    await check(r, c, [rec('K#1', { v: 2 })], [completed], stored); // the dead claim's payload does not count
    const record = await r.store.get(r.store.recordId(CONSUMER, 'K'));
    expect({ status: record?.status, attempts: record?.attempts }).toEqual({ status: 'COMPLETED', attempts: 2 });
  });

  it("release 'mark-failed': a failure leaves FAILED with the error; the retry takes it over and completes", async () => {
    const c: Case = { release: 'mark-failed' };
    const { r, stored } = await setUp(c);
    const first = await check(r, c, [rec('K#1', { throws: true }), rec('K#2')], [failed, sameKeyFailed], stored);
    const failedRecord = await r.store.get(r.store.recordId(CONSUMER, 'K'));
    expect(failedRecord?.status).toBe('FAILED');
    expect(failedRecord?.lastError).toContain('planned failure of K#1');
    await check(r, c, [rec('K#1'), rec('K#2')], [completed, duplicate], first.after);
    expect((await r.store.get(r.store.recordId(CONSUMER, 'K')))?.attempts).toBe(2);
  });

  it('bad records (not JSON, no key) are returned alone; the others complete', async () => {
    const c: Case = {};
    const { r, stored } = await setUp(c);
    const plan = [rec('O1'), rec('B#1', { bad: 'nojson' }), rec('B#2', { bad: 'nokey' }), rec('O2')];
    const bodyParse: Predicted = { kind: 'invalid', error: 'BodyParseError' };
    const noKey: Predicted = { kind: 'invalid', error: 'MissingKeyError' };
    await check(r, c, plan, [completed, bodyParse, noKey, completed], stored);
  });

  it('FIFO: a bad record holds back the rest of its group, not another group', async () => {
    const c: Case = { queue: 'fifo' };
    const { r, stored } = await setUp(c);
    const plan = [rec('B#1', { bad: 'nokey', group: 'A' }), rec('O1', { group: 'A' }), rec('O2', { group: 'B' })];
    await check(r, c, plan, [{ kind: 'invalid', error: 'MissingKeyError' }, groupFailed, completed], stored);
  });

  it('pipelined claims: copies of a key wait for the first: one effect, the copy a duplicate, a changed copy a mismatch', async () => {
    const c: Case = { claims: 'pipelined' };
    const { r, stored } = await setUp(c);
    await check(r, c, [rec('K#1'), rec('K#2'), rec('O1'), rec('K#3', { v: 2 })], [completed, duplicate, completed, mismatch], stored);
    expect(Object.fromEntries(r.effects)).toEqual({ K: 1, O1: 1 });
  });

  it('a COMPLETED key past its retention runs again (the retention is the window of deduplication)', async () => {
    const c: Case = { seeds: { K: 'retention-expired' } };
    const { r, stored } = await setUp(c);
    await check(r, c, [rec('K#1'), rec('K#2')], [completed, duplicate], stored);
    expect(r.effects.get('K')).toBe(1);
  });
});

describe('a bad record never fails the batch (model-free: the same batch with and without it)', () => {
  const layouts: readonly { name: string; queue: QueueKind; plan: PlanRecord[] }[] = [
    { name: 'standard', queue: 'standard', plan: [rec('O1'), rec('K#1'), rec('O2', { throws: true }), rec('K#2', { v: 2 }), rec('K#3')] },
    {
      name: 'FIFO',
      queue: 'fifo',
      plan: [
        rec('O1', { group: 'A' }),
        rec('K#1', { group: 'A' }),
        rec('O2', { group: 'B' }),
        rec('K#2', { group: 'B' }),
        rec('K#3', { group: 'A' }),
      ],
    },
  ];
  const states: readonly SeedState[] = ['none', 'completed', 'live-other-owner', 'crashed-owner'];
  for (const { name, queue, plan } of layouts)
    for (const state of states)
      for (const at of [0, 2, plan.length])
        it(`${name}, K stored ${state}, bad record at ${at}: the others end as without it, but for its group's records behind it`, async () => {
          const badRecord = rec('BAD', { bad: at === 2 ? 'nokey' : 'nojson', group: 'A' });
          const run = async (records: readonly PlanRecord[]) => {
            const r = rig({ queue });
            await r.seed('K', state);
            for (const p of records) if (p.throws) r.throwing.add(p.id);
            const d = await r.deliver(records.map((p) => r.recordOf(p)));
            return new Map(d.line.records.map((x) => [x.messageId, x.outcome]));
          };
          const without = await run(plan);
          const withBad = await run([...plan.slice(0, at), badRecord, ...plan.slice(at)]);
          expect(withBad.get('BAD')).toBe('invalid');
          const heldBack = (p: PlanRecord, i: number) => queue === 'fifo' && p.group === 'A' && i >= at;
          const unaffected = plan.filter((p, i) => !heldBack(p, i));
          // Done either way: K's copy in group B runs (completed) in place of its first copy held back in A (else a duplicate of it).
          const end = (outcome: string | undefined) => (outcome === 'duplicate' ? 'completed' : outcome);
          expect(unaffected.map((p) => `${p.id}: ${end(withBad.get(p.id))}`)).toEqual(
            unaffected.map((p) => `${p.id}: ${end(without.get(p.id))}`),
          );
          for (const p of plan.filter((x, i) => heldBack(x, i))) expect(withBad.get(p.id), p.id).not.toBe('completed');
        });
});

describe("the matrix's invariant checks catch what they claim to", () => {
  async function delivered(queue: QueueKind, plan: PlanRecord[]) {
    const r = rig({ queue });
    for (const p of plan) if (p.throws) r.throwing.add(p.id);
    const records = plan.map((p) => r.recordOf(p));
    const delivery = await r.deliver(records);
    const input = {
      rig: r,
      plan,
      records,
      delivery,
      prior: new Map<string, number>(),
      fifo: queue === 'fifo',
      heldElsewhere: new Set<string>(),
    };
    return input;
  }

  it('a clean delivery has no problem', async () => {
    const input = await delivered('fifo', [rec('O1', { group: 'A', throws: true }), rec('K#1', { group: 'A' })]);
    expect(await invariantProblems(input)).toEqual([]);
  });

  it('a returned record left out of batchItemFailures (acknowledged, never applied)', async () => {
    const input = await delivered('standard', [rec('O1', { throws: true }), rec('K#1')]);
    const doctored = { ...input, delivery: { ...input.delivery, failed: [] } };
    const problems = await invariantProblems(doctored);
    expect(problems).toContain('batchItemFailures [] are not the records logged unacknowledged [O1]');
    expect(problems).toContain('O1 acknowledged but the effect of O1 was never applied');
  });

  it('a record run behind a returned one of its group, an effect applied twice', async () => {
    const input = await delivered('fifo', [rec('O1', { group: 'A', throws: true }), rec('K#1', { group: 'A' })]);
    input.rig.effects.set('K', 2);
    const problems = await invariantProblems({ ...input, delivery: { ...input.delivery, calls: ['O1', 'K#1'] } });
    expect(problems).toContain('group A: K#1 behind O1, which comes back, ran');
    expect(problems).toContain('effect of K applied 2 times');
  });

  it('a key held by another live owner acknowledged; a bad record acknowledged', async () => {
    const input = await delivered('standard', [rec('K#1'), rec('B#1', { bad: 'nokey' })]);
    const problems = await invariantProblems({ ...input, delivery: { ...input.delivery, failed: [] }, heldElsewhere: new Set(['K']) });
    expect(problems).toContain('K#1 of K, held by another live owner, was acknowledged');
    expect(problems).toContain('bad record B#1 was acknowledged');
  });
});
