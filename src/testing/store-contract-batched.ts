/**
 * `storeContract` cases about the optional batched calls (`claimMany`,
 * `completeMany`): each input is answered, in input order, exactly as its
 * single call would answer it. A store without them passes these cases
 * without running them (the claim strategy then calls claim and complete
 * one by one).
 */
import assert from 'node:assert/strict';
import type { ClaimResult, CompleteInput, FencedWriteResult, StoreAnswer } from '../engine/store.js';
import { claim, LEASE_MS, mustClaim, type CaseContext, type Claimed, type ContractCase } from './store-contract-support.js';

function resultOf<T>(answer: StoreAnswer<T> | undefined, what: string): T {
  assert.ok(answer !== undefined, `${what}: one answer per input`);
  if (answer.kind === 'error') throw answer.error;
  return answer.result;
}

async function claimMany(ctx: CaseContext, keys: readonly string[]): Promise<ClaimResult[]> {
  const many = ctx.store.claimMany;
  assert.ok(many !== undefined);
  const inputs = keys.map((key) => ({ consumer: ctx.consumer, key, leaseMs: LEASE_MS, messageId: `m-${key}` }));
  const answers = await many.call(ctx.store, inputs);
  assert.equal(answers.length, keys.length, 'claimMany: one answer per input');
  return answers.map((a, i) => resultOf(a, `claimMany of "${keys[i]}"`));
}

async function completeMany(ctx: CaseContext, inputs: readonly CompleteInput[]): Promise<FencedWriteResult[]> {
  const many = ctx.store.completeMany;
  assert.ok(many !== undefined);
  const answers = await many.call(ctx.store, inputs);
  assert.equal(answers.length, inputs.length, 'completeMany: one answer per input');
  return answers.map((a) => resultOf(a, 'completeMany'));
}

/** The batched calls, when the store has them. */
export const batchedCases: readonly ContractCase[] = [
  {
    name: 'claimMany (when the store has it): each key answered in input order as claim answers it',
    body: async (ctx) => {
      if (ctx.store.claimMany === undefined) return;
      const passed = await mustClaim(ctx, 'lease-passed');
      ctx.clock.advance(LEASE_MS + 1);
      const live = await mustClaim(ctx, 'live');
      const done = await mustClaim(ctx, 'done');
      assert.equal((await ctx.store.complete({ id: done.id, token: done.token })).kind, 'ok');
      const answers = await claimMany(ctx, ['fresh', 'live', 'done', 'lease-passed', 'twice', 'twice']);
      assert.deepEqual(
        answers.map((a) => a.kind),
        ['claimed', 'in-progress', 'completed', 'claimed', 'claimed', 'in-progress'],
        'fresh, live claim, completed, lease passed, one key named twice (claimed once)',
      );
      const [fresh, busy, , takeover] = answers;
      assert.equal(busy?.kind === 'in-progress' ? busy.existing.owner : undefined, live.token, 'the refusal carries the holder’s record');
      assert.equal(takeover?.kind === 'claimed' ? takeover.record.attempts : undefined, 2, 'a takeover keeps counting attempts');
      assert.notEqual(takeover?.kind === 'claimed' ? takeover.token : undefined, passed.token);
      for (const won of answers.filter((a): a is Claimed => a.kind === 'claimed')) {
        const stored = await ctx.store.get(won.id);
        assert.equal(stored?.owner, won.token, 'each claim won is stored under its own token');
        assert.equal(stored?.status, 'IN_PROGRESS');
      }
      assert.equal(fresh?.id, ctx.store.recordId(ctx.consumer, 'fresh'), 'answers are in input order');
      assert.equal((await claim(ctx, 'live')).kind, 'in-progress', 'the live claim is untouched');
    },
  },
  {
    name: 'completeMany (when the store has it): completes each owned claim, and refuses a claim taken over without touching its new owner',
    body: async (ctx) => {
      if (ctx.store.completeMany === undefined) return;
      const a = await mustClaim(ctx, 'a');
      const b = await mustClaim(ctx, 'b');
      const lost = await mustClaim(ctx, 'lost');
      ctx.clock.advance(LEASE_MS + 1);
      const taker = await mustClaim(ctx, 'lost');
      const answers = await completeMany(ctx, [
        { id: a.id, token: a.token, result: { n: 1 }, storeResult: true },
        { id: lost.id, token: lost.token },
        { id: b.id, token: b.token },
      ]);
      assert.deepEqual(
        answers.map((x) => x.kind),
        ['ok', 'lease-lost', 'ok'],
      );
      const stored = await ctx.store.get(a.id);
      assert.equal(stored?.status, 'COMPLETED');
      assert.deepEqual(stored?.result, { n: 1 }, 'the result is stored');
      assert.equal((await ctx.store.get(b.id))?.status, 'COMPLETED');
      const taken = await ctx.store.get(taker.id);
      assert.equal(taken?.status, 'IN_PROGRESS', 'the new owner’s claim is untouched');
      assert.equal(taken?.owner, taker.token);
      assert.equal((await claim(ctx, 'a')).kind, 'completed', 'a completed key answers a later claim as done');
    },
  },
];
