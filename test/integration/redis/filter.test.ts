/**
 * withRedisFilter over the DynamoDB store (DynamoDB Local) and a real
 * redis-server: hot duplicates and live claims cost no DynamoDB request,
 * DynamoDB stays the source of truth, and no Redis failure changes an answer.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, withRedisFilter, type IdempotencyStore } from '../../../src/index.js';
import type { RedisConnection } from '../../../src/stores/redis/connection.js';
import type { RedisFilterOptions } from '../../../src/stores/redis/options.js';
import { markerText } from '../../../src/stores/redis/fields.js';
import { markInProgressScript } from '../../../src/stores/redis/scripts.js';
import { ManualClock } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { countRequests } from '../../support/store.js';
import { failingConnection, hangingConnection, testRedis, type TestRedis } from './support.js';

const LEASE = 30_000;
const RETENTION = 60 * 60 * 1000;

let redis: TestRedis;
let table: string;
beforeAll(async () => {
  redis = await testRedis();
  table = await freshTable(testDynamo().client);
});
afterAll(async () => {
  await redis.close();
});

/** A filter over a DynamoDB store on its own client, so its request count is its own. */
function setup(options: Partial<RedisFilterOptions> = {}, clock = new ManualClock(Date.now())) {
  const { doc } = testDynamo();
  const requests = countRequests(doc);
  const inner = new DynamoDBIdempotencyStore({ client: doc, tableName: table, retentionMs: RETENTION, clock });
  const store = withRedisFilter(inner, { redis: redis.connection, keyPrefix: redis.prefix, clock, ...options });
  return { clock, requests, inner, store };
}

const key = (): string => `order-${randomUUID()}`;
const claimOf = (k: string, extra: { payloadHash?: string; messageId?: string } = {}) => ({
  consumer: 'payments',
  key: k,
  leaseMs: LEASE,
  ...extra,
});

async function completed(store: IdempotencyStore, k: string, result?: unknown) {
  const claim = await store.claim(claimOf(k, { payloadHash: 'h-1' }));
  if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
  const done = await store.complete({ id: claim.id, token: claim.token, result, storeResult: result !== undefined });
  expect(done.kind).toBe('ok');
  return claim;
}

describe('withRedisFilter: hot duplicates and live claims', () => {
  it('answers a duplicate of a completed key with no DynamoDB request, with payload hash and result', async () => {
    const { store, requests } = setup();
    const k = key();
    await completed(store, k, { receipt: 'r-1' });
    requests.reset();
    const dup = await store.claim(claimOf(k));
    expect(requests.commands).toEqual([]);
    expect(dup).toMatchObject({
      kind: 'completed',
      fromCache: true,
      existing: { status: 'COMPLETED', payloadHash: 'h-1', result: { receipt: 'r-1' } },
    });
    expect(store.counts().completedHits).toBe(1);
  });

  it('another container (another filter, another client) sees the same marker', async () => {
    const first = setup();
    const second = setup({}, first.clock);
    const k = key();
    await completed(first.store, k);
    const dup = await second.store.claim(claimOf(k));
    expect(dup.kind).toBe('completed');
    expect(second.requests.commands).toEqual([]);
  });

  it('answers "in progress" for a live claim with no DynamoDB request, and never acknowledges it', async () => {
    const { store, requests } = setup();
    const k = key();
    const claim = await store.claim(claimOf(k, { payloadHash: 'h-1' }));
    expect(claim.kind).toBe('claimed');
    requests.reset();
    const dup = await store.claim(claimOf(k));
    expect(requests.commands).toEqual([]);
    expect(dup).toMatchObject({ kind: 'in-progress', existing: { status: 'IN_PROGRESS', payloadHash: 'h-1' } });
  });

  it('a marker whose lease has passed falls through: DynamoDB lets the next owner take over', async () => {
    const { store, clock, requests } = setup();
    const k = key();
    const first = await store.claim(claimOf(k));
    clock.advance(LEASE);
    requests.reset();
    const second = await store.claim(claimOf(k));
    expect(second.kind).toBe('claimed');
    expect(requests.commands).toEqual(['PutItemCommand', 'UpdateItemCommand']); // the Put finds the free item, the update takes it over
    if (first.kind !== 'claimed' || second.kind !== 'claimed') return;
    expect((await store.complete({ id: first.id, token: first.token })).kind).toBe('lease-lost');
    expect((await store.claim(claimOf(k))).kind).toBe('in-progress'); // the new owner's marker
    expect((await store.complete({ id: second.id, token: second.token })).kind).toBe('ok');
  });

  it('a released claim leaves no marker: the retry claims at once', async () => {
    const { store } = setup();
    const k = key();
    const claim = await store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error('not claimed');
    await store.release({ id: claim.id, token: claim.token, error: new Error('boom') });
    expect(await redis.client.exists(`${redis.prefix}${claim.id}`)).toBe(0);
    expect((await store.claim(claimOf(k))).kind).toBe('claimed');
  });

  it('a completed marker past the retention falls through to DynamoDB', async () => {
    const { store, clock, requests } = setup();
    const k = key();
    await completed(store, k);
    clock.advance(RETENTION + 1000);
    requests.reset();
    expect((await store.claim(claimOf(k))).kind).toBe('claimed');
    expect(requests.commands).toEqual(['PutItemCommand', 'UpdateItemCommand']); // the Put finds the free item, the update takes it over
  });
});

describe('withRedisFilter: DynamoDB decides', () => {
  it('writes a completed marker only after DynamoDB completed: a refused completion leaves none', async () => {
    const { store, clock } = setup();
    const k = key();
    const first = await store.claim(claimOf(k));
    clock.advance(LEASE);
    const second = await store.claim(claimOf(k));
    if (first.kind !== 'claimed' || second.kind !== 'claimed') throw new Error('not claimed');
    expect((await store.complete({ id: first.id, token: first.token })).kind).toBe('lease-lost');
    const marker = await redis.client.get(`${redis.prefix}${first.id}`);
    expect(marker?.startsWith('IN_PROGRESS ')).toBe(true);
  });

  it('a completion that throws leaves no completed marker', async () => {
    const { store, inner } = setup();
    const k = key();
    const claim = await store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error('not claimed');
    inner.complete = () => Promise.reject(new Error('DynamoDB unavailable'));
    await expect(store.complete({ id: claim.id, token: claim.token })).rejects.toThrow('DynamoDB unavailable');
    expect((await store.claim(claimOf(k))).kind).toBe('in-progress');
  });

  it('a key DynamoDB completed without the filter is answered by DynamoDB once, then from the marker', async () => {
    const { store, inner, requests } = setup();
    const k = key();
    await completed(inner, k);
    requests.reset();
    expect((await store.claim(claimOf(k))).kind).toBe('completed');
    expect((await store.claim(claimOf(k))).kind).toBe('completed');
    expect(requests.commands).toEqual(['PutItemCommand']);
  });

  it('a flushed marker falls through, and is written again', async () => {
    const { store, requests } = setup();
    const k = key();
    const claim = await completed(store, k);
    await redis.client.del(`${redis.prefix}${claim.id}`);
    requests.reset();
    expect((await store.claim(claimOf(k))).kind).toBe('completed');
    expect((await store.claim(claimOf(k))).kind).toBe('completed');
    expect(requests.commands).toEqual(['PutItemCommand']);
  });

  it('a late in-progress marker never hides a completion', async () => {
    const { store, clock } = setup();
    const k = key();
    const claim = await completed(store, k);
    const stale = markerText({ ...claim.record, leaseUntil: clock.now() + LEASE });
    const written = await markInProgressScript.run(redis.connection, `${redis.prefix}${claim.id}`, [
      stale,
      String(LEASE),
      String(clock.now()),
    ]);
    expect(written).toBe(0);
    expect((await store.claim(claimOf(k))).kind).toBe('completed');
  });

  it('does not cache a completed record larger than maxMarkerBytes', async () => {
    const { store, requests } = setup({ maxMarkerBytes: 1024 });
    const k = key();
    await completed(store, k, 'x'.repeat(2000));
    requests.reset();
    expect((await store.claim(claimOf(k))).kind).toBe('completed');
    expect(requests.commands).toEqual(['PutItemCommand']);
    expect(store.counts().markersSkipped).toBeGreaterThan(0);
  });
});

describe('withRedisFilter: Redis failures fall through', () => {
  const cases: Array<[string, RedisConnection, 'errors' | 'timeouts']> = [
    ['fails', failingConnection, 'errors'],
    ['hangs', hangingConnection, 'timeouts'],
  ];
  for (const [what, connection, counter] of cases) {
    it(`when Redis ${what}, DynamoDB decides every answer and the filter counts it`, async () => {
      const reported: string[] = [];
      const { store } = setup({ redis: connection, timeoutMs: 20, onError: (_e, operation) => reported.push(operation) });
      const k = key();
      const claim = await store.claim(claimOf(k));
      expect(claim.kind).toBe('claimed');
      expect((await store.claim(claimOf(k))).kind).toBe('in-progress');
      if (claim.kind !== 'claimed') return;
      expect((await store.complete({ id: claim.id, token: claim.token })).kind).toBe('ok');
      expect((await store.claim(claimOf(k))).kind).toBe('completed');
      expect((await store.get(claim.id))?.status).toBe('COMPLETED');
      const counts = store.counts();
      expect(counts[counter]).toBeGreaterThanOrEqual(5);
      expect(counts.completedHits + counts.inProgressHits).toBe(0);
      expect(reported).toContain('lookup');
    });
  }

  it('a throwing onError does not fail the record', async () => {
    const { store } = setup({
      redis: failingConnection,
      onError: () => {
        throw new Error('logger down');
      },
    });
    expect((await store.claim(claimOf(key()))).kind).toBe('claimed');
  });

  it('a value that is not a marker is ignored (a miss), not trusted', async () => {
    const { store } = setup();
    const k = key();
    await redis.client.set(`${redis.prefix}payments#${k}`, 'COMPLETED 9999999999 x\n{"not":"a record"}');
    expect((await store.claim(claimOf(k))).kind).toBe('claimed');
    expect(store.counts().errors).toBe(1);
  });
});

describe('withRedisFilter: commit and shape', () => {
  it('answers a duplicate commit from the marker with no DynamoDB request', async () => {
    const { store, requests } = setup();
    const k = key();
    const first = await store.commit({ consumer: 'payments', key: k, actions: [], result: 7, storeResult: true });
    expect(first.kind).toBe('committed');
    requests.reset();
    const dup = await store.commit({ consumer: 'payments', key: k, actions: [] });
    expect(dup).toMatchObject({ kind: 'duplicate', fromCache: true, existing: { result: 7 } });
    expect((await store.claim(claimOf(k))).kind).toBe('completed');
    expect(requests.commands).toEqual([]);
  });

  it('keeps commit only when the inner store has it', () => {
    const { inner } = setup();
    const claimOnly: IdempotencyStore = {
      recordId: (c, k) => inner.recordId(c, k),
      claim: (i) => inner.claim(i),
      complete: (i) => inner.complete(i),
      release: (i) => inner.release(i),
      get: (id) => inner.get(id),
    };
    expect('commit' in withRedisFilter(claimOnly, { redis: redis.connection })).toBe(false);
    expect(typeof withRedisFilter(inner, { redis: redis.connection }).commit).toBe('function');
  });

  it('rejects a non-store and unknown or wrongly typed options with a TypeError naming them', () => {
    const { inner } = setup();
    expect(() => withRedisFilter({} as never, { redis: redis.connection })).toThrow(/"store"/);
    expect(() => withRedisFilter(inner, { redis: redis.connection, timeout: 5 } as never)).toThrow(/unknown option "timeout"/);
    expect(() => withRedisFilter(inner, { redis: redis.connection, timeoutMs: 0 })).toThrow(/"timeoutMs"/);
    expect(() => withRedisFilter(inner, { redis: redis.connection, maxMarkerBytes: 1.5 })).toThrow(/"maxMarkerBytes"/);
    expect(() => withRedisFilter(inner, {} as never)).toThrow(/"redis" is required/);
  });
});
