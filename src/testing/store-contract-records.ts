/**
 * `storeContract` cases about what a record keeps: results, retention, the
 * payload hash, FAILED records, and a store's own retried writes.
 */
import assert from 'node:assert/strict';
import { InvalidRecordError } from '../engine/errors.js';
import type { ReleaseMode } from '../stores/dynamodb/options.js';
import {
  claim,
  mustClaim,
  mustComplete,
  pick,
  status,
  type CaseContext,
  type Claimed,
  type ContractCase,
  type StoredRecord,
} from './store-contract-support.js';

/** Stored results. */
export const resultCases: readonly ContractCase[] = [
  {
    name: 'results: a stored result comes back with the duplicate and from get, equal and not shared with the caller',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      const result = { receipt: 'r-1', amount: 12.5, lines: [null, 'x', { ok: true }] };
      await mustComplete(ctx, won, result);
      result.lines.push('added after completion');
      const expected = { receipt: 'r-1', amount: 12.5, lines: [null, 'x', { ok: true }] };
      const again = await claim(ctx, 'k');
      assert.equal(again.kind, 'completed');
      assert.deepEqual(again.kind === 'completed' ? again.existing.result : undefined, expected);
      assert.deepEqual((await ctx.store.get(won.id))?.result, expected);
    },
  },
  {
    name: 'results: nothing is stored without storeResult; null and undefined stay apart',
    body: async (ctx) => {
      const replay = async (key: string, input: { result?: unknown; storeResult?: boolean }): Promise<StoredRecord> => {
        const won = await mustClaim(ctx, key);
        assert.equal((await ctx.store.complete({ id: won.id, token: won.token, ...input })).kind, 'ok');
        return (await ctx.store.get(won.id)) ?? assert.fail('the completed record is readable');
      };
      assert.equal((await replay('not-stored', { result: { a: 1 }, storeResult: false })).result, undefined);
      assert.equal((await replay('null', { result: null, storeResult: true })).result, null);
      const undef = await replay('undefined', { result: undefined, storeResult: true });
      assert.ok(!('result' in undef) || undef.result === undefined, 'undefined is not stored as null');
    },
  },
  {
    name: 'results: a result that cannot be stored is an InvalidRecordError and the claim stays the owner’s',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      await assert.rejects(ctx.store.complete({ id: won.id, token: won.token, result: { n: 1n }, storeResult: true }), InvalidRecordError);
      assert.deepEqual(pick(await ctx.store.get(won.id), ['status', 'owner']), { status: 'IN_PROGRESS', owner: won.token });
      assert.equal(
        (await ctx.store.complete({ id: won.id, token: won.token, storeResult: false })).kind,
        'ok',
        'completing without it works',
      );
    },
  },
];

/** Retention, and the payload hash kept with the record. */
export const retentionCases: readonly ContractCase[] = [
  {
    name: 'retention: a completed record deduplicates until its retention ends, then counts as absent and the key is free',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k');
      await mustComplete(ctx, won);
      ctx.clock.advance(ctx.retentionMs - 1_000);
      assert.equal((await claim(ctx, 'k')).kind, 'completed', 'within the retention');
      assert.equal(await status(ctx, won.id), 'COMPLETED');
      ctx.clock.advance(2_000);
      assert.equal(await ctx.store.get(won.id), undefined, 'past the retention the record reads as absent');
      const next = await mustClaim(ctx, 'k');
      assert.equal(next.record.status, 'IN_PROGRESS');
    },
  },
  {
    name: 'retention: never ends a live claim whose lease is longer than the retention',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k', { leaseMs: ctx.retentionMs * 2 });
      ctx.clock.advance(ctx.retentionMs + 2_000);
      assert.equal((await claim(ctx, 'k')).kind, 'in-progress');
      assert.equal((await ctx.store.get(won.id))?.owner, won.token);
      await mustComplete(ctx, won);
    },
  },
  {
    name: 'payload hash: kept on the claim, returned with the record that refuses a claim, kept on completion',
    body: async (ctx) => {
      const won = await mustClaim(ctx, 'k', { payloadHash: 'hash-1' });
      const busy = await claim(ctx, 'k', { payloadHash: 'hash-2' });
      assert.equal(busy.kind === 'in-progress' ? busy.existing.payloadHash : busy.kind, 'hash-1');
      await mustComplete(ctx, won);
      const done = await claim(ctx, 'k', { payloadHash: 'hash-3' });
      assert.equal(done.kind === 'completed' ? done.existing.payloadHash : done.kind, 'hash-1');
      assert.equal((await ctx.store.get(won.id))?.payloadHash, 'hash-1');
    },
  },
];

/** Own-write recognition: a retried write whose first attempt landed. */
export function lostResponseCases(): ContractCase[] {
  const hook = (ctx: CaseContext) =>
    ctx.loseFirstResponse ?? assert.fail('this case needs the subject’s loseFirstResponse hook (or run the contract with ownWrite: false)');
  return [
    {
      name: 'own write: a claim whose answer was lost and retried is recognised as this claim',
      body: async (ctx) => {
        const result = await hook(ctx)(() => claim(ctx, 'k'));
        assert.equal(result.kind, 'claimed', 'the retry met its own claim, not someone else’s');
        const won = result as Claimed;
        assert.equal((await ctx.store.get(won.id))?.owner, won.token, 'the token returned is the one stored');
        await mustComplete(ctx, won);
      },
    },
    {
      name: 'own write: a completion whose answer was lost and retried is reported ok',
      body: async (ctx) => {
        const won = await mustClaim(ctx, 'k');
        const done = await hook(ctx)(() => ctx.store.complete({ id: won.id, token: won.token, result: 'r', storeResult: true }));
        assert.equal(done.kind, 'ok', 'the retry met its own completion');
        assert.deepEqual(pick(await ctx.store.get(won.id), ['status', 'result']), { status: 'COMPLETED', result: 'r' });
      },
    },
  ];
}

/** Cases for one release mode. */
export function releaseCases(mode: ReleaseMode): ContractCase[] {
  if (mode === 'delete') {
    return [
      {
        name: 'release (delete): the claim is gone and the next claim takes the key at once',
        body: async (ctx) => {
          const won = await mustClaim(ctx, 'k');
          assert.equal((await ctx.store.release({ id: won.id, token: won.token, error: new Error('boom') })).kind, 'ok');
          assert.equal(await ctx.store.get(won.id), undefined);
          assert.notEqual((await mustClaim(ctx, 'k')).token, won.token);
        },
      },
    ];
  }
  return [
    {
      name: 'release (mark-failed): the record is FAILED with the last error and no lease, and the next claim takes it (attempts 2)',
      body: async (ctx) => {
        const won = await mustClaim(ctx, 'k', { payloadHash: 'hash-1' });
        assert.equal((await ctx.store.release({ id: won.id, token: won.token, error: new Error('boom') })).kind, 'ok');
        const failed = await ctx.store.get(won.id);
        assert.deepEqual(pick(failed, ['status', 'owner', 'leaseUntil', 'attempts']), { status: 'FAILED', attempts: 1 });
        assert.match(failed?.lastError ?? '', /boom/, 'the last error is kept');
        const next = await mustClaim(ctx, 'k');
        assert.deepEqual(pick(next.record, ['status', 'attempts', 'lastError']), { status: 'IN_PROGRESS', attempts: 2 });
        assert.equal((await ctx.store.release({ id: won.id, token: won.token })).kind, 'lease-lost', 'the old token is fenced out');
      },
    },
  ];
}
