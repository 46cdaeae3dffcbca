/**
 * `storeContract` cases about `renew` (the lease heartbeat): a renewal
 * extends a live claim's lease so it is not taken over, and it is fenced on
 * the owner token like every write after the claim.
 */
import assert from 'node:assert/strict';
import type { RenewInput } from '../engine/store.js';
import { claim, LEASE_MS, mustClaim, mustComplete, pick, status, type CaseContext, type ContractCase } from './store-contract-support.js';

function renew(ctx: CaseContext, input: RenewInput): ReturnType<NonNullable<CaseContext['store']['renew']>> {
  const method = ctx.store.renew;
  assert.equal(typeof method, 'function', 'the store has renew (run storeContract with { renew: false } for a store without it)');
  return (method as NonNullable<typeof method>).call(ctx.store, input);
}

/** Renewal: extends the lease of the owner's live claim only. */
export const renewCases: readonly ContractCase[] = [
  {
    name: 'renew: the owner extends its lease to now + leaseMs; the claim is not taken over while renewed',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      ctx.clock.advance(LEASE_MS - 1);
      const renewed = await renew(ctx, { id: won.id, token: won.token, leaseMs: LEASE_MS });
      assert.equal(renewed.kind, 'ok', 'the owner renews its live claim');
      const expected = { status: 'IN_PROGRESS', owner: won.token, leaseUntil: ctx.clock.now() + LEASE_MS, attempts: 1 };
      assert.deepEqual(pick(await ctx.store.get(won.id), Object.keys(expected)), expected);
      if (renewed.record !== undefined) assert.equal(renewed.record.leaseUntil, ctx.clock.now() + LEASE_MS, 'the returned record');
      ctx.clock.advance(LEASE_MS - 1);
      assert.equal((await claim(ctx, 'k')).kind, 'in-progress', 'past the first lease, the renewed claim still holds');
      ctx.clock.advance(1);
      assert.equal((await claim(ctx, 'k')).kind, 'claimed', 'once the renewed lease ends, it is taken over');
    },
  },
  {
    name: 'renew: a lease that passed but was not taken over is still the owner’s to renew',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      ctx.clock.advance(LEASE_MS + 5);
      assert.equal((await renew(ctx, { id: won.id, token: won.token, leaseMs: LEASE_MS })).kind, 'ok');
      assert.equal((await claim(ctx, 'k')).kind, 'in-progress');
      await mustComplete(ctx, won);
      assert.equal(await status(ctx, won.id), 'COMPLETED');
    },
  },
  {
    name: 'renew: fenced: another token, a taken-over claim, a completed or released claim or a missing key is lease-lost and changes nothing',
    body: async (ctx) => {
      const old = await mustClaim(ctx, 'k');
      const lost = await renew(ctx, { id: old.id, token: 'not-the-owner', leaseMs: LEASE_MS });
      assert.equal(lost.kind, 'lease-lost', 'another token');
      ctx.clock.advance(LEASE_MS);
      const current = await mustClaim(ctx, 'k');
      const late = await renew(ctx, { id: old.id, token: old.token, leaseMs: LEASE_MS * 10 });
      assert.equal(late.kind, 'lease-lost', 'the old owner after a takeover');
      if (late.kind === 'lease-lost' && late.current !== undefined)
        assert.equal(late.current.owner, current.token, 'with the new owner’s record');
      assert.deepEqual(pick(await ctx.store.get(old.id), ['owner', 'leaseUntil']), {
        owner: current.token,
        leaseUntil: ctx.clock.now() + LEASE_MS,
      });
      await mustComplete(ctx, current);
      assert.equal((await renew(ctx, { id: current.id, token: current.token, leaseMs: LEASE_MS })).kind, 'lease-lost', 'after completion');
      assert.deepEqual(pick(await ctx.store.get(current.id), ['status', 'leaseUntil']), { status: 'COMPLETED' }, 'the completion stands');
      const released = await mustClaim(ctx, 'r');
      assert.equal((await ctx.store.release({ id: released.id, token: released.token })).kind, 'ok');
      assert.equal((await renew(ctx, { id: released.id, token: released.token, leaseMs: LEASE_MS })).kind, 'lease-lost', 'after release');
      assert.notEqual(await status(ctx, released.id), 'IN_PROGRESS', 'a renewal never revives a released claim');
      const ghost = ctx.store.recordId(ctx.consumer, 'ghost');
      assert.equal((await renew(ctx, { id: ghost, token: 'any', leaseMs: LEASE_MS })).kind, 'lease-lost', 'a key nobody claimed');
      assert.equal(await ctx.store.get(ghost), undefined, 'and nothing was created');
    },
  },
  {
    name: 'renew: a non-positive or non-finite leaseMs is a TypeError',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      for (const leaseMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await assert.rejects(renew(ctx, { id: won.id, token: won.token, leaseMs }), TypeError, `leaseMs ${leaseMs}`);
      }
      assert.equal((await ctx.store.get(won.id))?.leaseUntil, ctx.clock.now() + LEASE_MS, 'the lease is unchanged');
    },
  },
];
