/**
 * Red team of the PutItem claim (a fresh key's claim is one conditional Put;
 * a refused Put that finds a free item takes it over with the conditional
 * UpdateItem). Real races on DynamoDB Local: Promise.all of several stores,
 * and a gate on the client's stack that holds one request while another
 * invocation changes the item under it.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEpochSeconds } from '../../../src/engine/clock.js';
import { DynamoDBIdempotencyStore } from '../../../src/stores/dynamodb/store.js';
import type { DynamoDBIdempotencyStoreOptions } from '../../../src/stores/dynamodb/options.js';
import { withRedisFilter } from '../../../src/index.js';
import type { ClaimResult } from '../../../src/engine/store.js';
import { injectDynamoDBFaults, ManualClock } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { countRequests, rawItem } from '../../support/store.js';
import { testRedis, type TestRedis } from '../redis/support.js';

const LEASE = 30_000;
const RETENTION = 60 * 60 * 1000;
let table: string;

beforeAll(async () => {
  table = await freshTable(testDynamo().client);
});

type Options = Partial<Omit<DynamoDBIdempotencyStoreOptions, 'client' | 'tableName' | 'clock'>>;

/** One "invocation": a store on its own client and clock (started at the real time: DynamoDB Local's TTL is real). */
function instance(options: Options = {}, now = Date.now()) {
  const { doc } = testDynamo();
  const clock = new ManualClock(now);
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

/** Holds the next request of `command` (e.g. `UpdateItemCommand`) until `open()`; `reached` resolves when it is held. */
function gate(doc: DynamoDBDocumentClient, command: string) {
  let armed = true;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (armed && context['commandName'] === command) {
        armed = false;
        reach();
        await opened;
      }
      return next(args);
    },
    { step: 'initialize', name: `gate-${randomUUID()}` },
  );
  return { reached, open };
}

const key = (): string => `order-${randomUUID()}`;
const claimOf = (k: string, extra: { messageId?: string; payloadHash?: string } = {}) => ({
  consumer: 'payments',
  key: k,
  leaseMs: LEASE,
  ...extra,
});

function oneWinner(results: readonly ClaimResult[]) {
  const winners = results.filter((r) => r.kind === 'claimed');
  expect(winners).toHaveLength(1);
  const winner = winners[0];
  if (winner?.kind !== 'claimed') throw new Error('no winner');
  for (const r of results) {
    if (r === winner) continue;
    // Never a duplicate (nothing completed), never a second owner: in progress, with the winner's record.
    expect(r.kind).toBe('in-progress');
    if (r.kind === 'in-progress') expect(r.existing).toMatchObject({ status: 'IN_PROGRESS', owner: winner.token });
  }
  return winner;
}

describe('fresh key: racing Puts', () => {
  it('six invocations claim one fresh key at once: one owner, five in progress with its record, attempts 1', async () => {
    const k = key();
    const now = Date.now();
    const invocations = Array.from({ length: 6 }, () => instance({}, now));
    const results = await Promise.all(invocations.map((s, i) => s.store.claim(claimOf(k, { messageId: `m-${i}`, payloadHash: `h-${i}` }))));
    const winner = oneWinner(results);
    const i = results.indexOf(winner);
    const raw = await rawItem(testDynamo().doc, table, { id: winner.id });
    expect(raw).toMatchObject({ status: 'IN_PROGRESS', owner: winner.token, attempts: 1, messageId: `m-${i}`, payloadHash: `h-${i}` });
    expect(typeof raw?.['inflight']).toBe('string');
    // Every loser learnt it from its own refused Put: no loser took a second request.
    for (const s of invocations) expect(s.requests.commands).toEqual(['PutItemCommand']);
  });
});

describe('free item: racing takeovers (both Puts refused, both updates sent)', () => {
  const states = {
    'lease passed': async (k: string) => {
      const old = instance();
      const first = await old.store.claim(claimOf(k));
      if (first.kind !== 'claimed') throw new Error(first.kind);
      return old.clock.now() + LEASE;
    },
    'FAILED (mark-failed)': async (k: string) => {
      const old = instance({ release: 'mark-failed' });
      const first = await old.store.claim(claimOf(k, { payloadHash: 'h-old' }));
      if (first.kind !== 'claimed') throw new Error(first.kind);
      await old.store.release({ id: first.id, token: first.token, error: new Error('boom') });
      return old.clock.now() + 1;
    },
    'COMPLETED past retention, not yet deleted by TTL': async (k: string) => {
      // Retention 1 s on the old writer, and the racers look 5 s later: TTL (real) deletes hours late at best.
      const old = instance({ retentionMs: 1000 });
      const first = await old.store.claim(claimOf(k));
      if (first.kind !== 'claimed') throw new Error(first.kind);
      await old.store.complete({ id: first.id, token: first.token, result: { receipt: 'r-1' }, storeResult: true });
      return old.clock.now() + 5000;
    },
  } as const;

  for (const [state, setUp] of Object.entries(states)) {
    it(`${state}: exactly one of five takeovers wins, attempts becomes 2, leftovers are gone`, async () => {
      const k = key();
      const at = await setUp(k);
      const racers = Array.from({ length: 5 }, () => instance({}, at));
      const results = await Promise.all(racers.map((s, i) => s.store.claim(claimOf(k, { messageId: `m-${i}` }))));
      const winner = oneWinner(results);
      expect(winner.record).toMatchObject({ status: 'IN_PROGRESS', owner: winner.token, attempts: 2, leaseUntil: at + LEASE });
      const raw = await rawItem(testDynamo().doc, table, { id: winner.id });
      expect(raw).toMatchObject({ status: 'IN_PROGRESS', owner: winner.token, attempts: 2, messageId: `m-${results.indexOf(winner)}` });
      for (const gone of ['result', 'lastError', 'completedAt', 'payloadHash']) expect(raw).not.toHaveProperty(gone);
      expect(raw?.['expiresAt']).toBe(toEpochSeconds(at + RETENTION));
      expect(typeof raw?.['inflight']).toBe('string');
    });
  }
});

describe('two takeovers whose Puts were both refused before either update was sent', () => {
  it('both send the conditional update; exactly one wins, the other is in progress with its record', async () => {
    const k = key();
    const old = instance();
    const first = await old.store.claim(claimOf(k));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    const at = old.clock.now() + LEASE;
    const [a, b] = [instance({}, at), instance({}, at)];
    const [gateA, gateB] = [gate(a.doc, 'UpdateItemCommand'), gate(b.doc, 'UpdateItemCommand')];
    const claims = Promise.all([a.store.claim(claimOf(k, { messageId: 'm-a' })), b.store.claim(claimOf(k, { messageId: 'm-b' }))]);
    await Promise.all([gateA.reached, gateB.reached]); // both Puts refused by the free item
    gateA.open();
    gateB.open();
    const results = await claims;
    const winner = oneWinner(results);
    expect(a.requests.commands).toEqual(['PutItemCommand', 'UpdateItemCommand']);
    expect(b.requests.commands).toEqual(['PutItemCommand', 'UpdateItemCommand']);
    expect(winner.record).toMatchObject({ attempts: 2, messageId: results[0] === winner ? 'm-a' : 'm-b' });
    expect(await rawItem(testDynamo().doc, table, { id: winner.id })).toMatchObject({ owner: winner.token, attempts: 2 });
  });
});

describe('the item changes between the refused Put and the takeover', () => {
  async function heldTakeover(options: Options = {}) {
    const k = key();
    const old = instance(options);
    const first = await old.store.claim(claimOf(k, { payloadHash: 'h-1' }));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    const late = instance({ cache: { maxEntries: 10 } }, old.clock.now() + LEASE); // the old lease has passed for it
    const held = gate(late.doc, 'UpdateItemCommand');
    const claiming = late.store.claim(claimOf(k, { payloadHash: 'h-1', messageId: 'm-late' }));
    await held.reached; // its Put was refused by a free item, its update is on the wire
    return { k, old, first, late, held, claiming };
  }

  it('the old owner completes first: the takeover is refused and answers completed with the owner’s record', async () => {
    const { old, first, late, held, claiming } = await heldTakeover();
    expect((await old.store.complete({ id: first.id, token: first.token, result: 7, storeResult: true })).kind).toBe('ok');
    held.open();
    const result = await claiming;
    expect(result).toMatchObject({ kind: 'completed', fromCache: false });
    if (result.kind !== 'completed') return;
    expect(result.existing).toMatchObject({ status: 'COMPLETED', owner: first.token, attempts: 1, result: 7, payloadHash: 'h-1' });
    expect(late.requests.commands).toEqual(['PutItemCommand', 'UpdateItemCommand']);
    expect(await rawItem(late.doc, table, { id: first.id })).toMatchObject({ status: 'COMPLETED', owner: first.token, attempts: 1 });
    // The duplicate it found is remembered: the next copy costs no request.
    late.requests.reset();
    expect(await late.store.claim(claimOf(first.id.slice('payments#'.length)))).toMatchObject({ kind: 'completed', fromCache: true });
    expect(late.requests.commands).toEqual([]);
  });

  it('another takeover wins first: ours is refused and answers in progress with the winner’s record', async () => {
    const { k, old, first, held, claiming } = await heldTakeover();
    const other = instance({}, old.clock.now() + LEASE);
    const won = await other.store.claim(claimOf(k));
    expect(won.kind).toBe('claimed');
    if (won.kind !== 'claimed') return;
    held.open();
    const result = await claiming;
    expect(result.kind).toBe('in-progress');
    if (result.kind === 'in-progress') expect(result.existing).toMatchObject({ owner: won.token, attempts: 2 });
    // The first owner is fenced out of both.
    expect((await old.store.complete({ id: first.id, token: first.token })).kind).toBe('lease-lost');
  });

  it('the old owner released (delete) first: the takeover creates the item afresh, attempts 1, with everything a Put sets', async () => {
    const { old, first, late, held, claiming } = await heldTakeover();
    expect((await old.store.release({ id: first.id, token: first.token })).kind).toBe('ok');
    held.open();
    const result = await claiming;
    expect(result.kind).toBe('claimed');
    if (result.kind !== 'claimed') return;
    expect(result.record).toMatchObject({
      status: 'IN_PROGRESS',
      owner: result.token,
      attempts: 1,
      messageId: 'm-late',
      payloadHash: 'h-1',
    });
    const raw = await rawItem(late.doc, table, { id: first.id });
    expect(raw).toMatchObject({ owner: result.token, attempts: 1, messageId: 'm-late', payloadHash: 'h-1' });
    expect(typeof raw?.['inflight']).toBe('string');
  });

  it('the old owner marked it FAILED first: the takeover still wins and counts the attempt', async () => {
    const { old, first, late, held, claiming } = await heldTakeover({ release: 'mark-failed' });
    expect((await old.store.release({ id: first.id, token: first.token, error: new Error('boom') })).kind).toBe('ok');
    held.open();
    const result = await claiming;
    expect(result).toMatchObject({ kind: 'claimed', record: { attempts: 2, status: 'IN_PROGRESS' } });
    expect(await rawItem(late.doc, table, { id: first.id })).not.toHaveProperty('lastError');
  });
});

describe('lost responses (the request landed, the SDK saw an error and retried)', () => {
  it('a Put whose response was lost: the retried Put finds our own claim, which is ours (attempts 1)', async () => {
    const s = instance();
    const faults = injectDynamoDBFaults(s.doc, { rules: [{ fault: 'network-after', commands: ['PutItem'], calls: [1] }] });
    const result = await s.store.claim(claimOf(key(), { messageId: 'm-1' }));
    faults.remove();
    expect(faults.injected()['network-after']).toBe(1);
    expect(result.kind).toBe('claimed');
    if (result.kind !== 'claimed') return;
    expect(result.record).toMatchObject({ owner: result.token, attempts: 1, messageId: 'm-1' });
    expect(await rawItem(s.doc, table, { id: result.id })).toMatchObject({ owner: result.token, attempts: 1 });
    // And it is really ours: the fenced completion succeeds.
    expect((await s.store.complete({ id: result.id, token: result.token })).kind).toBe('ok');
  });

  it('a takeover whose response was lost: the retried update finds our own claim (attempts counted once)', async () => {
    const k = key();
    const old = instance();
    const first = await old.store.claim(claimOf(k));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    const s = instance({}, old.clock.now() + LEASE);
    const faults = injectDynamoDBFaults(s.doc, { rules: [{ fault: 'network-after', commands: ['UpdateItem'], calls: [1] }] });
    const result = await s.store.claim(claimOf(k));
    faults.remove();
    expect(faults.injected()['network-after']).toBe(1);
    expect(result).toMatchObject({ kind: 'claimed', record: { attempts: 2 } });
    if (result.kind !== 'claimed') return;
    expect(await rawItem(s.doc, table, { id: result.id })).toMatchObject({ owner: result.token, attempts: 2 });
    expect((await old.store.complete({ id: first.id, token: first.token })).kind).toBe('lease-lost');
  });
});

describe('what the Put writes', () => {
  it('TTL is the later of retention and lease end, on the Put and on the takeover alike', async () => {
    const k = key();
    const s = instance({ retentionMs: 1000 });
    const first = await s.store.claim(claimOf(k));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    expect((await rawItem(s.doc, table, { id: first.id }))?.['expiresAt']).toBe(toEpochSeconds(s.clock.now() + LEASE));
    s.clock.advance(LEASE);
    const again = await s.store.claim(claimOf(k));
    if (again.kind !== 'claimed') throw new Error(again.kind);
    expect((await rawItem(s.doc, table, { id: again.id }))?.['expiresAt']).toBe(toEpochSeconds(s.clock.now() + LEASE));
  });

  it('a claim made by the Put is in the in-flight index: staleClaims finds it once its lease passed, and not after completion', async () => {
    const k = key();
    const s = instance();
    const claimedAt = s.clock.now();
    const first = await s.store.claim(claimOf(k, { messageId: 'm-stale' }));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    expect(s.requests.commands).toEqual(['PutItemCommand']);
    const stale = await s.store.staleClaims({ leaseEndedBefore: claimedAt + LEASE + 1 });
    expect(stale.find((c) => c.id === first.id)).toMatchObject({ leaseUntil: claimedAt + LEASE, messageId: 'm-stale', attempts: 1 });
    expect(await s.store.staleClaims({ leaseEndedBefore: claimedAt + LEASE })).not.toContainEqual(
      expect.objectContaining({ id: first.id }),
    );
    await s.store.complete({ id: first.id, token: first.token });
    expect(await s.store.staleClaims({ leaseEndedBefore: claimedAt + LEASE + 1 })).not.toContainEqual(
      expect.objectContaining({ id: first.id }),
    );
  });

  it('without trackInflight the Put writes no inflight attribute', async () => {
    const s = instance({ trackInflight: false });
    const first = await s.store.claim(claimOf(key()));
    if (first.kind !== 'claimed') throw new Error(first.kind);
    expect(await rawItem(s.doc, table, { id: first.id })).not.toHaveProperty('inflight');
  });
});

describe('the Redis filter in front of the Put claim', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await testRedis();
  });
  afterAll(async () => {
    await redis.close();
  });

  function filtered(now: number) {
    const s = instance({}, now);
    return { ...s, filter: withRedisFilter(s.store, { redis: redis.connection, keyPrefix: redis.prefix, clock: s.clock }) };
  }

  it('two containers race a fresh key: one Put wins, its marker then answers everyone else without DynamoDB', async () => {
    const k = key();
    const now = Date.now();
    const [a, b, c] = [filtered(now), filtered(now), filtered(now)];
    const results = await Promise.all([
      a.filter.claim(claimOf(k, { payloadHash: 'h-1' })),
      b.filter.claim(claimOf(k, { payloadHash: 'h-1' })),
    ]);
    const winner = oneWinner(results);
    c.requests.reset();
    expect(await c.filter.claim(claimOf(k))).toMatchObject({ kind: 'in-progress', existing: { owner: winner.token, payloadHash: 'h-1' } });
    expect(c.requests.commands).toEqual([]);
    const owner = results[0] === winner ? a : b;
    expect((await owner.filter.complete({ id: winner.id, token: winner.token, result: 'r', storeResult: true })).kind).toBe('ok');
    expect(await c.filter.claim(claimOf(k))).toMatchObject({
      kind: 'completed',
      fromCache: true,
      existing: { result: 'r', owner: winner.token },
    });
    expect(c.requests.commands).toEqual([]);
  });

  it('a Put whose response was lost behind the filter: the claim is ours and its marker carries our token', async () => {
    const k = key();
    const a = filtered(Date.now());
    const faults = injectDynamoDBFaults(a.doc, { rules: [{ fault: 'network-after', commands: ['PutItem'], calls: [1] }] });
    const claim = await a.filter.claim(claimOf(k));
    faults.remove();
    expect(claim.kind).toBe('claimed');
    if (claim.kind !== 'claimed') return;
    const b = filtered(a.clock.now());
    expect(await b.filter.claim(claimOf(k))).toMatchObject({ kind: 'in-progress', existing: { owner: claim.token } });
    expect(b.requests.commands).toEqual([]);
  });
});
