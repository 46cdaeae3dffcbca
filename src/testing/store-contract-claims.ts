/**
 * `storeContract` cases about the claim and fencing: a claim is one
 * conditional write, a live lease is never taken over and an ended one is,
 * and every write after the claim is fenced on the owner token.
 */
import assert from 'node:assert/strict';
import { claim, LEASE_MS, mustClaim, mustComplete, pick, status, type Claimed, type ContractCase } from './store-contract-support.js';

/** The claim: record ids, the conditional write, lease expiry, the lease argument. */
export const claimCases: readonly ContractCase[] = [
  {
    name: 'record ids: one per consumer and key, stable, and the id claim returns',
    body: async (ctx) => {
      const { store, consumer } = ctx;
      assert.equal(store.recordId(consumer, 'a'), store.recordId(consumer, 'a'));
      assert.notEqual(store.recordId(consumer, 'a'), store.recordId(consumer, 'b'));
      assert.notEqual(store.recordId(consumer, 'a'), store.recordId(`${consumer}-other`, 'a'));
      assert.equal((await mustClaim(ctx, 'a')).id, store.recordId(consumer, 'a'));
      assert.equal((await mustClaim(ctx, 'b')).kind, 'claimed', 'keys are independent');
      assert.equal(await store.get(store.recordId(consumer, 'never-written')), undefined, 'a key never written reads as undefined');
    },
  },
  {
    name: 'conditional claim: a free key is claimed IN_PROGRESS with an owner token, a lease, attempts 1, payload hash and message id',
    body: async (ctx) => {
      const now = ctx.clock.now();
      const won = await mustClaim(ctx, 'k', { payloadHash: 'hash-1', messageId: 'm-1' });
      assert.ok(typeof won.token === 'string' && won.token.length > 0, 'an owner token');
      const expected = {
        status: 'IN_PROGRESS',
        owner: won.token,
        leaseUntil: now + LEASE_MS,
        attempts: 1,
        payloadHash: 'hash-1',
        messageId: 'm-1',
      };
      for (const record of [won.record, await ctx.store.get(won.id)]) {
        assert.ok(record !== undefined, 'the claim is stored');
        assert.deepEqual(pick(record, Object.keys(expected)), expected);
        assert.ok(record.expiresAt * 1000 >= now + ctx.retentionMs, 'expiresAt (epoch seconds) covers the retention');
      }
      assert.notEqual((await mustClaim(ctx, 'k2')).token, won.token, 'every claim has its own token');
    },
  },
  {
    name: 'conditional claim: a live claim refuses every other claim as in-progress, with the holder’s record',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      ctx.clock.advance(LEASE_MS - 1);
      const second = await claim(ctx, 'k');
      assert.equal(second.kind, 'in-progress');
      assert.equal(second.id, won.id);
      assert.equal(second.kind === 'in-progress' ? second.existing.owner : undefined, won.token, 'the refusal carries the holder’s record');
      assert.equal((await ctx.store.get(won.id))?.owner, won.token, 'the refused claim changed nothing');
    },
  },
  {
    name: 'conditional claim: of concurrent claims on one key exactly one wins',
    body: async (ctx) => {
      const results = await Promise.all(Array.from({ length: 8 }, () => claim(ctx, 'k')));
      const winners = results.filter((r) => r.kind === 'claimed');
      assert.equal(winners.length, 1, `exactly one claim wins, got ${winners.length}`);
      assert.ok(results.every((r) => r.kind === 'claimed' || r.kind === 'in-progress'));
      assert.equal((await ctx.store.get(winners[0]?.id ?? ''))?.owner, (winners[0] as Claimed).token);
    },
  },
  {
    name: 'lease expiry: a claim is protected until its lease ends, then another claim takes it over (attempts 2)',
    body: async (ctx) => {
      const first = await mustClaim(ctx, 'k');
      ctx.clock.advance(LEASE_MS - 1);
      assert.equal((await claim(ctx, 'k')).kind, 'in-progress', 'one ms before the lease ends');
      ctx.clock.advance(1);
      const second = await mustClaim(ctx, 'k');
      assert.notEqual(second.token, first.token);
      assert.equal(second.record.attempts, 2, 'the takeover counts as the second attempt');
      assert.equal((await ctx.store.get(first.id))?.owner, second.token);
    },
  },
  {
    name: 'conditional claim: a non-positive or non-finite leaseMs is a TypeError',
    body: async (ctx) => {
      for (const leaseMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await assert.rejects(claim(ctx, 'k', { leaseMs }), TypeError, `leaseMs ${leaseMs}`);
      }
      assert.equal(await ctx.store.get(ctx.store.recordId(ctx.consumer, 'k')), undefined, 'nothing was claimed');
    },
  },
];

/** Fencing: every write after the claim is conditioned on the owner token. */
export const fencingCases: readonly ContractCase[] = [
  {
    name: 'fencing: complete and release with a token that is not the owner’s are refused (lease-lost) and change nothing',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      assert.equal((await ctx.store.complete({ id: won.id, token: 'not-the-owner', result: 'x', storeResult: true })).kind, 'lease-lost');
      assert.equal((await ctx.store.release({ id: won.id, token: 'not-the-owner' })).kind, 'lease-lost');
      const record = await ctx.store.get(won.id);
      assert.deepEqual(pick(record, ['status', 'owner', 'result']), { status: 'IN_PROGRESS', owner: won.token });
    },
  },
  {
    name: 'fencing: after a takeover the old owner can neither complete nor release; the new owner can',
    body: async (ctx) => {
      const old = await mustClaim(ctx, 'k');
      ctx.clock.advance(LEASE_MS);
      const current = await mustClaim(ctx, 'k');
      const completed = await ctx.store.complete({ id: old.id, token: old.token });
      assert.equal(completed.kind, 'lease-lost', 'the old owner’s completion is refused');
      if (completed.kind === 'lease-lost' && completed.current !== undefined) assert.equal(completed.current.owner, current.token);
      assert.equal((await ctx.store.release({ id: old.id, token: old.token })).kind, 'lease-lost', 'the old owner’s release is refused');
      assert.deepEqual(pick(await ctx.store.get(old.id), ['status', 'owner']), { status: 'IN_PROGRESS', owner: current.token });
      await mustComplete(ctx, current);
      assert.equal(await status(ctx, current.id), 'COMPLETED');
    },
  },
  {
    name: 'fencing: a release after the completion cannot undo it',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      await mustComplete(ctx, won);
      assert.equal((await ctx.store.release({ id: won.id, token: won.token, error: new Error('late') })).kind, 'lease-lost');
      assert.equal(await status(ctx, won.id), 'COMPLETED');
      assert.equal((await claim(ctx, 'k')).kind, 'completed');
    },
  },
  {
    name: 'fencing: complete and release of a key nobody claimed are refused and create nothing',
    body: async (ctx) => {
      const id = ctx.store.recordId(ctx.consumer, 'ghost');
      assert.equal((await ctx.store.complete({ id, token: 'any' })).kind, 'lease-lost');
      assert.equal((await ctx.store.release({ id, token: 'any' })).kind, 'lease-lost');
      assert.equal(await ctx.store.get(id), undefined);
    },
  },
  {
    name: 'completion: a completed key is a duplicate for every later claim, long after the lease, with its record',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      await mustComplete(ctx, won);
      ctx.clock.advance(LEASE_MS * 10);
      const again = await claim(ctx, 'k');
      assert.equal(again.kind, 'completed');
      if (again.kind === 'completed') assert.equal(again.existing.status, 'COMPLETED');
      assert.equal(await status(ctx, won.id), 'COMPLETED');
    },
  },
];
