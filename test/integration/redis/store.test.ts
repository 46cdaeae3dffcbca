/**
 * RedisIdempotencyStore against a real redis-server (the global setup's):
 * what the store contract does not cover on its own — one round trip per
 * claim, the Lua rule held to `claimVerdict`, key TTLs, the script cache,
 * limits, options.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimVerdict } from '../../../src/engine/claim.js';
import { EffectivelyOnceError, ItemTooLargeError } from '../../../src/engine/errors.js';
import { sha256 } from '../../../src/engine/hashing.js';
import type { IdempotencyRecord } from '../../../src/engine/record.js';
import { RedisIdempotencyStore, type RedisIdempotencyStoreOptions } from '../../../src/index.js';
import type { RedisConnection } from '../../../src/stores/redis/connection.js';
import { MAX_REDIS_RESULT_BYTES } from '../../../src/stores/redis/store.js';
import { verdictScript } from '../../../src/stores/redis/scripts.js';
import { ManualClock } from '../../../src/testing/index.js';
import { countingConnection, testRedis, type TestRedis } from './support.js';

const LEASE = 30_000;
const RETENTION = 60 * 60 * 1000;

let redis: TestRedis;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  await redis.close();
});

function setup(options: Partial<RedisIdempotencyStoreOptions> = {}) {
  const clock = new ManualClock(Date.now());
  const connection = countingConnection(redis.connection);
  const store = new RedisIdempotencyStore({ redis: connection, keyPrefix: redis.prefix, retentionMs: RETENTION, clock, ...options });
  return { clock, connection, store };
}

const key = (): string => `order-${randomUUID()}`;
const claimOf = (k: string, extra: { messageId?: string; payloadHash?: string } = {}) => ({
  consumer: 'payments',
  key: k,
  leaseMs: LEASE,
  ...extra,
});

describe('RedisIdempotencyStore options', () => {
  it('rejects an unknown or wrongly typed option with a TypeError naming it', () => {
    const make = (o: Record<string, unknown>) => () => new RedisIdempotencyStore({ redis: redis.connection, ...o } as never);
    expect(make({ retention: 5 })).toThrow(/unknown option "retention"/);
    expect(make({ retentionMs: 0 })).toThrow(/"retentionMs"/);
    expect(make({ release: 'drop' })).toThrow(/"release"/);
    expect(make({ keyPrefix: 3 })).toThrow(/"keyPrefix"/);
    expect(make({ clock: Date })).toThrow(/"clock"/);
    expect(() => new RedisIdempotencyStore({} as never)).toThrow(/"redis" is required/);
    expect(() => new RedisIdempotencyStore({ redis: {} } as never)).toThrow(TypeError);
  });
});

describe('claim', () => {
  it('a lost claim returns the existing record in the same round trip (one command)', async () => {
    const { store, connection } = setup();
    const k = key();
    const first = await store.claim(claimOf(k, { messageId: 'm-1', payloadHash: 'h-1' }));
    expect(first.kind).toBe('claimed');
    connection.commands.length = 0;
    const second = await store.claim(claimOf(k, { messageId: 'm-2', payloadHash: 'h-2' }));
    expect(connection.commands).toEqual(['EVALSHA']);
    expect(second.kind).toBe('in-progress');
    if (second.kind !== 'in-progress' || first.kind !== 'claimed') return;
    expect(second.existing).toMatchObject({
      id: `payments#${k}`,
      status: 'IN_PROGRESS',
      owner: first.token,
      messageId: 'm-1',
      payloadHash: 'h-1',
      attempts: 1,
    });
  });

  it('keeps an IN_PROGRESS key for its lease and a COMPLETED one for the retention (PTTL)', async () => {
    const { store } = setup();
    const claim = await store.claim(claimOf(key()));
    if (claim.kind !== 'claimed') throw new Error('not claimed');
    const leaseTtl = await redis.client.pTTL(`${redis.prefix}${claim.id}`);
    expect(leaseTtl).toBeGreaterThan(0);
    expect(leaseTtl).toBeLessThanOrEqual(LEASE);
    await store.complete({ id: claim.id, token: claim.token });
    const retentionTtl = await redis.client.pTTL(`${redis.prefix}${claim.id}`);
    expect(retentionTtl).toBeGreaterThan(LEASE);
    expect(retentionTtl).toBeLessThanOrEqual(RETENTION);
  });

  it('recognises its own claim when the client sent it twice (a retry after a lost reply)', async () => {
    const twice: RedisConnection = {
      sendCommand: async (args, k) => {
        await redis.connection.sendCommand(args, k);
        return redis.connection.sendCommand(args, k);
      },
    };
    const { store } = setup({ redis: twice });
    const claim = await store.claim(claimOf(key()));
    expect(claim.kind).toBe('claimed');
    if (claim.kind === 'claimed') expect(claim.record.attempts).toBe(1);
  });

  it('falls back from EVALSHA to EVAL when the server lost its script cache (SCRIPT FLUSH, restart)', async () => {
    const { store, connection } = setup();
    await store.claim(claimOf(key()));
    await redis.client.scriptFlush();
    connection.commands.length = 0;
    const claim = await store.claim(claimOf(key()));
    expect(claim.kind).toBe('claimed');
    expect(connection.commands).toEqual(['EVALSHA', 'EVAL']);
  });

  it('hashes the business key with hashKeys', async () => {
    const { store } = setup({ hashKeys: true });
    const k = key();
    expect(store.recordId('payments', k)).toBe(`payments#${sha256(k)}`);
    const claim = await store.claim(claimOf(k));
    expect(claim.id).toBe(`payments#${sha256(k)}`);
    expect(await redis.client.exists(`${redis.prefix}payments#${sha256(k)}`)).toBe(1);
  });

  it('a key that holds something else fails that claim alone with the server error', async () => {
    const { store } = setup();
    const k = key();
    await redis.client.set(`${redis.prefix}payments#${k}`, 'not a hash');
    await expect(store.claim(claimOf(k))).rejects.toThrow(/WRONGTYPE/);
  });

  it('rejects a non-positive lease', async () => {
    const { store } = setup();
    await expect(store.claim({ consumer: 'payments', key: key(), leaseMs: 0 })).rejects.toThrow(TypeError);
  });
});

describe('complete and results', () => {
  it('refuses a result whose JSON exceeds the cap, leaving the claim IN_PROGRESS', async () => {
    const { store } = setup();
    const claim = await store.claim(claimOf(key()));
    if (claim.kind !== 'claimed') throw new Error('not claimed');
    const result = 'x'.repeat(MAX_REDIS_RESULT_BYTES);
    await expect(store.complete({ id: claim.id, token: claim.token, result, storeResult: true })).rejects.toThrow(ItemTooLargeError);
    expect((await store.get(claim.id))?.status).toBe('IN_PROGRESS');
    const fits = 'x'.repeat(MAX_REDIS_RESULT_BYTES - 2); // two bytes of JSON quotes
    expect((await store.complete({ id: claim.id, token: claim.token, result: fits, storeResult: true })).kind).toBe('ok');
  });

  it('replays results exactly: undefined stays undefined, null stays null, nested values round-trip', async () => {
    const { store } = setup();
    for (const result of [undefined, null, 0, '', { a: [1, 'two', { three: 3.5 }], big: 12345678901234568 }]) {
      const k = key();
      const claim = await store.claim(claimOf(k));
      if (claim.kind !== 'claimed') throw new Error('not claimed');
      await store.complete({ id: claim.id, token: claim.token, result, storeResult: true });
      const dup = await store.claim(claimOf(k));
      expect(dup.kind).toBe('completed');
      if (dup.kind === 'completed') expect(dup.existing.result).toStrictEqual(result);
    }
  });

  it('stores no result without storeResult', async () => {
    const { store } = setup();
    const k = key();
    const claim = await store.claim(claimOf(k));
    if (claim.kind !== 'claimed') throw new Error('not claimed');
    await store.complete({ id: claim.id, token: claim.token, result: { secret: 1 } });
    expect(await redis.client.hExists(`${redis.prefix}${claim.id}`, 'result')).toBe(0);
  });
});

describe('get', () => {
  it('reads nothing for an absent key and for a record past its retention', async () => {
    const { store, clock } = setup();
    expect(await store.get(`payments#${key()}`)).toBeUndefined();
    const claim = await store.claim(claimOf(key()));
    if (claim.kind !== 'claimed') throw new Error('not claimed');
    await store.complete({ id: claim.id, token: claim.token });
    expect((await store.get(claim.id))?.status).toBe('COMPLETED');
    clock.advance(RETENTION + 1000); // expiresAt is in whole seconds, rounded up
    expect(await store.get(claim.id)).toBeUndefined();
  });

  it('a hash that is not an idempotency record is an EffectivelyOnceError, not a guess', async () => {
    const { store } = setup();
    const id = `payments#${key()}`;
    await redis.client.hSet(`${redis.prefix}${id}`, { status: 'DONE', expiresAt: '1' });
    await expect(store.get(id)).rejects.toThrow(EffectivelyOnceError);
  });
});

describe('the Lua claim rule is claimVerdict', () => {
  it('agrees with claimVerdict on every status, lease and retention edge', async () => {
    const now = 1_800_000_000_000;
    const base = { id: 'c#k', attempts: 1, expiresAt: now / 1000 + 60 } as const;
    const records: IdempotencyRecord[] = [];
    for (const status of ['IN_PROGRESS', 'COMPLETED', 'FAILED'] as const) {
      for (const expiresAt of [now / 1000 - 1, now / 1000, now / 1000 + 1]) {
        records.push({ ...base, status, expiresAt });
        for (const leaseUntil of [now - 1, now, now + 1]) records.push({ ...base, status, expiresAt, leaseUntil });
      }
    }
    for (const record of records) {
      const k = `${redis.prefix}verdict-${randomUUID()}`;
      const fields: Record<string, string> = { status: record.status, expiresAt: String(record.expiresAt), attempts: '1' };
      if (record.leaseUntil !== undefined) fields['leaseUntil'] = String(record.leaseUntil);
      await redis.client.hSet(k, fields);
      const lua = await verdictScript.run(redis.connection, k, [String(now)]);
      expect({ record, verdict: lua }).toEqual({ record, verdict: claimVerdict(record, now) });
    }
    const absent = await verdictScript.run(redis.connection, `${redis.prefix}absent-${randomUUID()}`, [String(now)]);
    expect(absent).toBe(claimVerdict(undefined, now));
  });
});
