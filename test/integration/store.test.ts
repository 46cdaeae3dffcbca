import { randomUUID } from 'node:crypto';
import { GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { toEpochSeconds } from '../../src/engine/clock.js';
import {
  IdempotencyInProgressError,
  ItemTooLargeError,
  TransactionLimitError,
  TransactionRetryableError,
} from '../../src/engine/errors.js';
import { sha256 } from '../../src/engine/hashing.js';
import { INFLIGHT_SHARDS, inflightShard } from '../../src/stores/dynamodb/layout.js';
import { DynamoDBIdempotencyStore } from '../../src/stores/dynamodb/store.js';
import type { DynamoDBIdempotencyStoreOptions } from '../../src/stores/dynamodb/options.js';
import type { TransactItem } from '../../src/engine/store.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';
import { ManualClock } from '../../src/testing/index.js';
import { countRequests, rawItem } from '../support/store.js';

const LEASE = 30_000;
const RETENTION = 60 * 60 * 1000;

let table: string;
let orders: string;

beforeAll(async () => {
  const { client } = testDynamo();
  table = await freshTable(client);
  orders = await freshTable(client, businessTable, 'orders');
});

/** A store on its own client (so request counts are its own) with a manual clock. */
function setup(options: Partial<Omit<DynamoDBIdempotencyStoreOptions, 'client' | 'tableName'>> = {}) {
  const { doc } = testDynamo();
  // Started at the real time: DynamoDB Local's TTL really deletes items whose expiresAt has passed.
  const clock = new ManualClock(Date.now());
  const requests = countRequests(doc);
  const store = new DynamoDBIdempotencyStore({
    client: doc,
    tableName: table,
    retentionMs: RETENTION,
    clock,
    trackInflight: true,
    ...options,
  });
  return { doc, clock, requests, store };
}

const key = (): string => `order-${randomUUID()}`;
const claimOf = (k: string, extra: { messageId?: string; payloadHash?: string } = {}) => ({
  consumer: 'payments',
  key: k,
  leaseMs: LEASE,
  ...extra,
});

describe('DynamoDBIdempotencyStore options', () => {
  it('rejects an unknown option with a TypeError naming it', () => {
    const { doc } = testDynamo();
    expect(() => new DynamoDBIdempotencyStore({ client: doc, tableName: 't', retention: 5 } as never)).toThrow(
      /unknown option "retention"/,
    );
  });

  it('rejects a wrongly typed or missing option with a TypeError naming it', () => {
    const { doc } = testDynamo();
    const make = (o: Record<string, unknown>) => () => new DynamoDBIdempotencyStore({ client: doc, tableName: 't', ...o } as never);
    expect(make({ retentionMs: '1h' })).toThrow(TypeError);
    expect(make({ retentionMs: '1h' })).toThrow(/"retentionMs"/);
    expect(make({ release: 'drop' })).toThrow(/"release"/);
    expect(make({ cache: { maxEntries: 0 } })).toThrow(/"cache"/);
    expect(make({ clock: Date })).toThrow(/"clock"/);
    expect(make({ tableName: '' })).toThrow(/"tableName"/);
    expect(() => new DynamoDBIdempotencyStore({ tableName: 't' } as never)).toThrow(/"client"/);
  });
});

describe('claim', () => {
  it('claims a fresh key as IN_PROGRESS with lease, owner token, TTL, attempts and in-flight shard', async () => {
    const { store, clock, doc, requests } = setup();
    const k = key();
    const now = clock.now();
    const claim = await store.claim(claimOf(k, { messageId: 'm-1', payloadHash: 'h-1' }));
    expect(claim.kind).toBe('claimed');
    if (claim.kind !== 'claimed') return;
    // A fresh key is one PutItem (DynamoDB Local spends less on it than on the full conditional update).
    expect(requests.commands).toEqual(['PutItemCommand']);
    expect(claim.id).toBe(`payments#${k}`);
    expect(claim.record).toMatchObject({
      status: 'IN_PROGRESS',
      owner: claim.token,
      leaseUntil: now + LEASE,
      expiresAt: toEpochSeconds(now + RETENTION),
      attempts: 1,
      messageId: 'm-1',
      payloadHash: 'h-1',
      claimedAt: now,
    });
    const raw = await rawItem(doc, table, { id: claim.id });
    expect(raw?.['inflight']).toBe(inflightShard(claim.id, INFLIGHT_SHARDS));
  });

  it('leaves claims out of the in-flight index unless trackInflight is set (no index write cost)', async () => {
    const { store, doc } = setup({ trackInflight: false });
    const claim = await store.claim(claimOf(key()));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    expect(await rawItem(doc, table, { id: claim.id })).not.toHaveProperty('inflight');
    const stale = await store.staleClaims({ leaseEndedBefore: Number.MAX_SAFE_INTEGER, limit: 1000 });
    expect(stale.map((c) => c.id)).not.toContain(claim.id);
  });

  it('keeps the TTL after the lease end when the lease outlasts retention', async () => {
    const { store, clock } = setup({ retentionMs: 1_000 });
    const claim = await store.claim(claimOf(key()));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    expect(claim.record.expiresAt).toBe(toEpochSeconds(clock.now() + LEASE));
  });

  it('a second claim is in-progress and returns the existing record from the same single request', async () => {
    const { store, requests } = setup();
    const k = key();
    const first = await store.claim(claimOf(k, { messageId: 'm-1' }));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    requests.reset();
    const second = await store.claim(claimOf(k, { messageId: 'm-2' }));
    expect(requests.commands).toEqual(['PutItemCommand']);
    expect(second.kind).toBe('in-progress');
    if (second.kind !== 'in-progress') return;
    expect(second.existing.owner).toBe(first.token);
    expect(second.existing.messageId).toBe('m-1');
  });

  it('after the lease passes the key is claimable again, with a new token and attempts incremented', async () => {
    const { store, clock, requests, doc } = setup();
    const k = key();
    const first = await store.claim(claimOf(k));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    clock.advance(LEASE - 1);
    expect((await store.claim(claimOf(k))).kind).toBe('in-progress');
    clock.advance(1);
    requests.reset();
    const again = await store.claim(claimOf(k, { messageId: 'm-2' }));
    expect(again.kind).toBe('claimed');
    if (again.kind !== 'claimed') return;
    expect(again.token).not.toBe(first.token);
    expect(again.record.attempts).toBe(2);
    // The Put is refused by the existing item, which is free: the conditional update takes it over, counting attempts.
    expect(requests.commands).toEqual(['PutItemCommand', 'UpdateItemCommand']);
    expect(await rawItem(doc, table, { id: again.id })).toMatchObject({ owner: again.token, messageId: 'm-2', attempts: 2 });
  });

  it('a takeover removes what the older record left (result, lastError, completedAt, payload hash)', async () => {
    const { store, clock, doc } = setup({ release: 'mark-failed' });
    const k = key();
    const first = await store.claim(claimOf(k, { payloadHash: 'h-1' }));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    expect((await store.release({ id: first.id, token: first.token, error: new Error('boom') })).kind).toBe('ok');
    clock.advance(1);
    const again = await store.claim(claimOf(k));
    if (again.kind !== 'claimed') throw new Error(again.kind);
    expect(again.record).toMatchObject({ status: 'IN_PROGRESS', owner: again.token, attempts: 2 });
    const raw = await rawItem(doc, table, { id: again.id });
    expect(raw).toMatchObject({ status: 'IN_PROGRESS', owner: again.token, attempts: 2 });
    expect(raw).not.toHaveProperty('lastError');
    expect(raw).not.toHaveProperty('payloadHash');
  });

  it('a takeover that loses the race to another takeover is in-progress, with the winner’s record', async () => {
    const a = setup();
    const b = setup();
    const k = key();
    const first = await a.store.claim(claimOf(k));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    a.clock.advance(LEASE);
    b.clock.advanceTo(a.clock.now());
    const results = await Promise.all([a.store.claim(claimOf(k)), b.store.claim(claimOf(k))]);
    const winners = results.filter((r) => r.kind === 'claimed');
    expect(winners).toHaveLength(1);
    const loser = results.find((r) => r.kind !== 'claimed');
    expect(loser?.kind).toBe('in-progress');
    if (loser?.kind === 'in-progress' && winners[0]?.kind === 'claimed') expect(loser.existing.owner).toBe(winners[0].token);
  });

  it('two concurrent claims from two store instances: exactly one wins, every time', async () => {
    const a = setup();
    const b = setup();
    for (let i = 0; i < 10; i++) {
      const k = key();
      const results = await Promise.all([a.store.claim(claimOf(k)), b.store.claim(claimOf(k))]);
      const claimed = results.filter((r) => r.kind === 'claimed');
      const waiting = results.filter((r) => r.kind === 'in-progress');
      expect(claimed).toHaveLength(1);
      expect(waiting).toHaveLength(1);
      const winner = claimed[0];
      const loser = waiting[0];
      if (winner?.kind === 'claimed' && loser?.kind === 'in-progress') expect(loser.existing.owner).toBe(winner.token);
    }
  });
});

describe('complete', () => {
  it('marks the claim COMPLETED, leaves the in-flight index, and a later claim finds it completed', async () => {
    const { store, clock, doc } = setup();
    const k = key();
    const claim = await store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    clock.advance(500);
    const done = await store.complete({ id: claim.id, token: claim.token, result: { receipt: 'r-1' }, storeResult: true });
    expect(done.kind).toBe('ok');
    const raw = await rawItem(doc, table, { id: claim.id });
    expect(raw).toMatchObject({ status: 'COMPLETED', completedAt: clock.now(), result: { j: JSON.stringify({ receipt: 'r-1' }) } });
    expect(raw?.['expiresAt']).toBe(toEpochSeconds(clock.now() + RETENTION));
    expect(raw).not.toHaveProperty('inflight');
    expect(raw).not.toHaveProperty('leaseUntil');
    const again = await store.claim(claimOf(k));
    expect(again).toMatchObject({ kind: 'completed', fromCache: false, existing: { status: 'COMPLETED' } });
  });

  it('does not store the result unless asked to', async () => {
    const { store, doc } = setup();
    const claim = await store.claim(claimOf(key()));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    await store.complete({ id: claim.id, token: claim.token, result: { secret: 1 } });
    expect(await rawItem(doc, table, { id: claim.id })).not.toHaveProperty('result');
  });

  it('an oversized result is ItemTooLargeError before any request, and the claim stays IN_PROGRESS', async () => {
    const { store, doc, requests } = setup();
    const claim = await store.claim(claimOf(key()));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    requests.reset();
    const huge = 'x'.repeat(401 * 1024);
    await expect(store.complete({ id: claim.id, token: claim.token, result: huge, storeResult: true })).rejects.toBeInstanceOf(
      ItemTooLargeError,
    );
    expect(requests.commands).toEqual([]);
    expect(await rawItem(doc, table, { id: claim.id })).toMatchObject({ status: 'IN_PROGRESS', owner: claim.token });
    const big = 'y'.repeat(300 * 1024);
    expect((await store.complete({ id: claim.id, token: claim.token, result: big, storeResult: true })).kind).toBe('ok');
  });

  it('a record that no longer exists is lease-lost without a current record', async () => {
    const { store } = setup();
    const result = await store.complete({ id: `payments#${key()}`, token: randomUUID() });
    expect(result).toEqual({ kind: 'lease-lost' });
  });
});

describe('fencing after a takeover', () => {
  for (const release of ['delete', 'mark-failed'] as const) {
    it(`a stale owner can neither complete nor release (${release}) the new owner's claim`, async () => {
      const { store, clock, doc } = setup({ release });
      const k = key();
      const slow = await store.claim(claimOf(k));
      if (slow.kind !== 'claimed') throw new Error(slow.kind);
      clock.advance(LEASE + 1);
      const fresh = await store.claim(claimOf(k));
      if (fresh.kind !== 'claimed') throw new Error(fresh.kind);
      const before = await rawItem(doc, table, { id: fresh.id });

      const completed = await store.complete({ id: slow.id, token: slow.token, result: 'late', storeResult: true });
      expect(completed.kind).toBe('lease-lost');
      if (completed.kind === 'lease-lost') expect(completed.current?.owner).toBe(fresh.token);
      const released = await store.release({ id: slow.id, token: slow.token, error: new Error('late') });
      expect(released.kind).toBe('lease-lost');

      expect(await rawItem(doc, table, { id: fresh.id })).toEqual(before);
      expect((await store.complete({ id: fresh.id, token: fresh.token })).kind).toBe('ok');
    });
  }

  it('a late release can never delete a COMPLETED record, even with the right token', async () => {
    const { store } = setup();
    const claim = await store.claim(claimOf(key()));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    await store.complete({ id: claim.id, token: claim.token });
    const released = await store.release({ id: claim.id, token: claim.token });
    expect(released).toMatchObject({ kind: 'lease-lost', current: { status: 'COMPLETED' } });
    expect((await store.get(claim.id))?.status).toBe('COMPLETED');
  });
});

describe('release', () => {
  it("'delete' removes the claim so the retry can claim it afresh", async () => {
    const { store } = setup();
    const k = key();
    const claim = await store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    expect(await store.release({ id: claim.id, token: claim.token, error: new Error('boom') })).toEqual({ kind: 'ok' });
    expect(await store.get(claim.id)).toBeUndefined();
    const again = await store.claim(claimOf(k));
    expect(again).toMatchObject({ kind: 'claimed', record: { attempts: 1 } });
  });

  it("'mark-failed' keeps a FAILED record with lastError and attempts, out of the index, and claimable", async () => {
    const { store, doc } = setup({ release: 'mark-failed' });
    const k = key();
    const claim = await store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    const released = await store.release({ id: claim.id, token: claim.token, error: new RangeError('x'.repeat(5000)) });
    expect(released).toMatchObject({ kind: 'ok', record: { status: 'FAILED', attempts: 1 } });
    const raw = await rawItem(doc, table, { id: claim.id });
    expect(String(raw?.['lastError'])).toMatch(/^RangeError: x+$/);
    expect(Buffer.byteLength(String(raw?.['lastError']))).toBeLessThanOrEqual(1024);
    expect(raw).not.toHaveProperty('inflight');
    expect(raw).not.toHaveProperty('owner');
    const again = await store.claim(claimOf(k));
    expect(again).toMatchObject({ kind: 'claimed', record: { attempts: 2, status: 'IN_PROGRESS' } });
    expect(again.kind === 'claimed' ? again.record.lastError : 'not claimed').toBeUndefined();
  });
});

describe('retention', () => {
  it('a record past its retention is absent for get and claimable, although the item still exists', async () => {
    const { store, clock, doc } = setup();
    const k = key();
    const claim = await store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    await store.complete({ id: claim.id, token: claim.token, result: 'old', storeResult: true });
    expect((await store.get(claim.id))?.status).toBe('COMPLETED');
    clock.advance(RETENTION + 1000);
    expect(await rawItem(doc, table, { id: claim.id })).toBeDefined();
    expect(await store.get(claim.id)).toBeUndefined();
    const again = await store.claim(claimOf(k));
    expect(again.kind).toBe('claimed');
    const raw = await rawItem(doc, table, { id: claim.id });
    expect(raw).not.toHaveProperty('result');
    expect(raw).not.toHaveProperty('completedAt');
  });
});

describe('hashKeys', () => {
  it('stores no trace of the raw business key', async () => {
    const { store, doc } = setup({ hashKeys: true });
    const personal = `alice-${randomUUID()}@example.com`;
    const claim = await store.claim(claimOf(personal));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    expect(claim.id).toBe(`payments#${sha256(personal)}`);
    expect(store.recordId('payments', personal)).toBe(claim.id);
    await store.complete({ id: claim.id, token: claim.token });
    const raw = await rawItem(doc, table, { id: claim.id });
    expect(raw).toBeDefined();
    expect(JSON.stringify(raw)).not.toContain(personal);
  });
});

describe('warm-container cache', () => {
  it('a cached COMPLETED record answers a claim with zero requests', async () => {
    const { store, requests } = setup({ cache: { maxEntries: 10 } });
    const k = key();
    const claim = await store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    await store.complete({ id: claim.id, token: claim.token });
    requests.reset();
    const dup = await store.claim(claimOf(k));
    expect(dup).toMatchObject({ kind: 'completed', fromCache: true, existing: { status: 'COMPLETED' } });
    expect(requests.commands).toEqual([]);
  });

  it('is filled by a claim that found COMPLETED', async () => {
    const writer = setup();
    const reader = setup({ cache: { maxEntries: 10 } });
    const k = key();
    const claim = await writer.store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    await writer.store.complete({ id: claim.id, token: claim.token });
    expect(await reader.store.claim(claimOf(k))).toMatchObject({ kind: 'completed', fromCache: false });
    reader.requests.reset();
    expect(await reader.store.claim(claimOf(k))).toMatchObject({ kind: 'completed', fromCache: true });
    expect(reader.requests.commands).toEqual([]);
  });

  it('entries expire with the retention', async () => {
    const { store, clock, requests } = setup({ cache: { maxEntries: 10 } });
    const k = key();
    const claim = await store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    await store.complete({ id: claim.id, token: claim.token });
    clock.advance(RETENTION + 1000);
    requests.reset();
    expect((await store.claim(claimOf(k))).kind).toBe('claimed');
    // The item outlives its retention until TTL removes it: the Put is refused, the update takes it.
    expect(requests.commands).toEqual(['PutItemCommand', 'UpdateItemCommand']);
  });

  it('never caches IN_PROGRESS: every claim of a claimed key asks DynamoDB', async () => {
    const { store, requests } = setup({ cache: { maxEntries: 10 } });
    const k = key();
    await store.claim(claimOf(k));
    requests.reset();
    expect((await store.claim(claimOf(k))).kind).toBe('in-progress');
    expect((await store.claim(claimOf(k))).kind).toBe('in-progress');
    expect(requests.commands).toEqual(['PutItemCommand', 'PutItemCommand']);
  });

  it('is bounded: the least recently used entry is dropped', async () => {
    const { store, requests } = setup({ cache: { maxEntries: 1 } });
    const [k1, k2] = [key(), key()];
    for (const k of [k1, k2]) {
      const c = await store.claim(claimOf(k));
      if (c.kind !== 'claimed') throw new Error(c.kind);
      await store.complete({ id: c.id, token: c.token });
    }
    requests.reset();
    expect(await store.claim(claimOf(k2))).toMatchObject({ kind: 'completed', fromCache: true });
    expect(await store.claim(claimOf(k1))).toMatchObject({ kind: 'completed', fromCache: false });
    expect(requests.commands).toEqual(['PutItemCommand']);
  });
});

describe('staleClaims', () => {
  it('finds a crashed claim, not completed, released or live ones', async () => {
    const { store, clock } = setup({ release: 'mark-failed' });
    const claim = async () => {
      const c = await store.claim(claimOf(key()));
      if (c.kind !== 'claimed') throw new Error(c.kind);
      return c;
    };
    const crashed = await claim();
    const completed = await claim();
    await store.complete({ id: completed.id, token: completed.token });
    const failed = await claim();
    await store.release({ id: failed.id, token: failed.token, error: 'x' });
    clock.advance(LEASE * 2);
    const live = await claim();

    const stale = await store.staleClaims({ leaseEndedBefore: clock.now() });
    const ids = stale.map((s) => s.id);
    expect(ids).toContain(crashed.id);
    expect(ids).not.toContain(completed.id);
    expect(ids).not.toContain(failed.id);
    expect(ids).not.toContain(live.id);
    expect(stale.find((s) => s.id === crashed.id)).toMatchObject({ leaseUntil: crashed.record.leaseUntil, attempts: 1 });
    expect(await store.staleClaims({ leaseEndedBefore: clock.now(), limit: 1 })).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Transaction strategy

const putOrder = (pk: string, extra: Record<string, unknown> = {}): TransactItem => ({
  Put: { TableName: orders, Item: { pk, ...extra } },
});
const bumpCounter = (pk: string): TransactItem => ({
  Update: {
    TableName: orders,
    Key: { pk },
    UpdateExpression: 'ADD #count :one',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':one': 1 },
  },
});
const commitOf = (k: string, actions: TransactItem[]) => ({ consumer: 'ledger', key: k, messageId: 'm-1', actions });

describe('commit', () => {
  it('commits the COMPLETED record and the business write in one request', async () => {
    const { store, doc, requests } = setup();
    const k = key();
    const result = await store.commit({ ...commitOf(k, [putOrder(k, { total: 5 })]), result: { ok: true }, storeResult: true });
    expect(result).toMatchObject({ kind: 'committed', record: { status: 'COMPLETED', attempts: 1, result: { ok: true } } });
    expect(requests.commands).toEqual(['TransactWriteItemsCommand']);
    expect(await rawItem(doc, orders, { pk: k })).toEqual({ pk: k, total: 5 });
    expect(await rawItem(doc, table, { id: `ledger#${k}` })).toMatchObject({ status: 'COMPLETED', messageId: 'm-1' });
  });

  it('a second commit of the same key is a duplicate and the business write is not applied twice', async () => {
    const { store, doc } = setup();
    const k = key();
    expect((await store.commit(commitOf(k, [bumpCounter(k)]))).kind).toBe('committed');
    const dup = await store.commit(commitOf(k, [bumpCounter(k)]));
    expect(dup).toMatchObject({ kind: 'duplicate', fromCache: false, existing: { status: 'COMPLETED', messageId: 'm-1' } });
    expect(await rawItem(doc, orders, { pk: k })).toEqual({ pk: k, count: 1 });
  });

  it('a cached commit is a duplicate with zero requests', async () => {
    const { store, requests } = setup({ cache: { maxEntries: 10 } });
    const k = key();
    await store.commit(commitOf(k, [bumpCounter(k)]));
    requests.reset();
    expect(await store.commit(commitOf(k, [bumpCounter(k)]))).toMatchObject({ kind: 'duplicate', fromCache: true });
    expect(requests.commands).toEqual([]);
  });

  it('a failed business condition is a business-conflict and nothing is written', async () => {
    const { store, doc } = setup();
    const k = key();
    const mustExist: TransactItem = {
      ConditionCheck: { TableName: orders, Key: { pk: `missing-${k}` }, ConditionExpression: 'attribute_exists(pk)' },
    };
    const result = await store.commit(commitOf(k, [putOrder(k), mustExist]));
    expect(result.kind).toBe('business-conflict');
    if (result.kind !== 'business-conflict') return;
    expect(result.error.reasons.find((r) => r.code === 'ConditionalCheckFailed')?.index).toBe(1);
    expect(result.error.key).toBe(k);
    expect(await rawItem(doc, orders, { pk: k })).toBeUndefined();
    expect(await rawItem(doc, table, { id: `ledger#${k}` })).toBeUndefined();
  });

  it('a live claim of the claim strategy blocks a commit as in progress; after its lease the commit takes over', async () => {
    const { store, clock, doc } = setup();
    const k = key();
    const claim = await store.claim({ consumer: 'ledger', key: k, leaseMs: LEASE });
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    const blocked = store.commit(commitOf(k, [putOrder(k)]));
    await expect(blocked).rejects.toBeInstanceOf(IdempotencyInProgressError);
    await expect(blocked).rejects.toMatchObject({ existing: { owner: claim.token } });
    expect(await rawItem(doc, orders, { pk: k })).toBeUndefined();
    clock.advance(LEASE);
    expect((await store.commit(commitOf(k, [putOrder(k)]))).kind).toBe('committed');
    expect((await store.complete({ id: claim.id, token: claim.token })).kind).toBe('lease-lost');
  });

  it('a FAILED record (mark-failed) does not block a commit', async () => {
    const { store } = setup({ release: 'mark-failed' });
    const k = key();
    const claim = await store.claim({ consumer: 'ledger', key: k, leaseMs: LEASE });
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    await store.release({ id: claim.id, token: claim.token, error: 'boom' });
    expect((await store.commit(commitOf(k, [putOrder(k)]))).kind).toBe('committed');
  });

  it('concurrent commits of the same key apply the business write once', async () => {
    const a = setup();
    const b = setup();
    const k = key();
    const settled = await Promise.allSettled([
      a.store.commit(commitOf(k, [bumpCounter(k)])),
      b.store.commit(commitOf(k, [bumpCounter(k)])),
    ]);
    const kinds = settled.map((s) => (s.status === 'fulfilled' ? s.value.kind : (s.reason as Error).name));
    expect(kinds.filter((x) => x === 'committed')).toHaveLength(1);
    for (const other of kinds.filter((x) => x !== 'committed')) expect(['duplicate', 'TransactionRetryableError']).toContain(other);
    expect(await rawItem(a.doc, orders, { pk: k })).toEqual({ pk: k, count: 1 });
  });
});

describe('commit limits are checked before sending', () => {
  const rejectsWithoutRequest = async (actions: TransactItem[], message: RegExp) => {
    const { store, requests } = setup();
    await expect(store.commit(commitOf(key(), actions))).rejects.toThrow(TransactionLimitError);
    await expect(store.commit(commitOf(key(), actions))).rejects.toThrow(message);
    expect(requests.commands).toEqual([]);
  };

  it('more than 100 actions including the idempotency record', async () => {
    await rejectsWithoutRequest(
      Array.from({ length: 100 }, (_, i) => putOrder(`p${i}`)),
      /at most 99 actions/,
    );
  });

  it('two actions on the same item (compared canonically, Put key inferred)', async () => {
    await rejectsWithoutRequest([putOrder('same', { a: 1 }), bumpCounter('same')], /same item/);
  });

  it('a handler action on the idempotency record itself', async () => {
    const k = key();
    const { store, requests } = setup();
    const touch: TransactItem = { Delete: { TableName: table, Key: { id: `ledger#${k}` } } };
    await expect(store.commit(commitOf(k, [touch]))).rejects.toThrow(/idempotency record/);
    expect(requests.commands).toEqual([]);
  });

  it('more than 4 MB in total', async () => {
    const blob = 'z'.repeat(390 * 1024);
    await rejectsWithoutRequest(
      Array.from({ length: 11 }, (_, i) => putOrder(`big${i}`, { blob })),
      /4194304-byte/,
    );
  });
});

describe('commit cancellation mapping', () => {
  it('a transaction conflict is thrown as TransactionRetryableError with the cause kept', async () => {
    const cancelled = Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
    });
    const client = { send: async () => Promise.reject(cancelled) } as unknown as DynamoDBIdempotencyStoreOptions['client'];
    const store = new DynamoDBIdempotencyStore({ client, tableName: 'idem' });
    const input: TransactWriteCommandInput['TransactItems'] = [putOrder('x')];
    const attempt = store.commit(commitOf('k', input));
    await expect(attempt).rejects.toBeInstanceOf(TransactionRetryableError);
    await expect(attempt).rejects.toMatchObject({ cause: cancelled, key: 'k' });
  });
});

describe('get', () => {
  it('returns the record (with its in-flight attribute kept in the item) and undefined for a missing id', async () => {
    const { store, doc } = setup();
    const claim = await store.claim(claimOf(key()));
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    expect(await store.get(claim.id)).toMatchObject({ id: claim.id, status: 'IN_PROGRESS', owner: claim.token });
    expect(await store.get(`payments#${key()}`)).toBeUndefined();
    const raw = await doc.send(new GetCommand({ TableName: table, Key: { id: claim.id } }));
    expect(raw.Item?.['inflight']).toBeDefined();
  });
});
