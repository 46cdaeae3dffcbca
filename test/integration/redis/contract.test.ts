/**
 * The store contract (`storeContract` from `effectively-once/testing`) on the
 * Redis store and on the Redis filter, against the global setup's
 * redis-server: the filter over `DynamoDBIdempotencyStore` (DynamoDB Local)
 * and over `MemoryIdempotencyStore` (it decorates any store).
 *
 * Own writes: the Redis store never resends a command itself, but a client
 * may (ioredis and iovalkey resend unanswered commands after a reconnect), so
 * the hook sends the first script twice and loses the first answer, which is
 * what such a resend looks like to the server.
 */
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, RedisIdempotencyStore, withRedisFilter } from '../../../src/index.js';
import type { RedisConnection } from '../../../src/stores/redis/connection.js';
import { injectDynamoDBFaults, MemoryIdempotencyStore, storeContract, type StoreContractSubject } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { testRedis, type TestRedis } from './support.js';

const releaseModes = ['delete', 'mark-failed'] as const;

let redis: TestRedis;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  await redis.close();
});

/** A connection that, once armed, sends the next script twice and answers with the second reply. */
function resendingConnection(inner: () => RedisConnection) {
  let armed = false;
  let lost = 0;
  const connection: RedisConnection = {
    sendCommand: async (args, key) => {
      const script = args[0] === 'EVALSHA' || args[0] === 'EVAL';
      if (!armed || !script) return inner().sendCommand(args, key);
      armed = false;
      await inner().sendCommand(args, key); // applied; its answer never reaches the store
      lost += 1;
      return inner().sendCommand(args, key);
    },
  };
  const loseFirstResponse = async <T>(call: () => Promise<T>): Promise<T> => {
    const before = lost;
    armed = true;
    const result = await call();
    expect(lost, 'an answer was lost').toBe(before + 1);
    return result;
  };
  return { connection, loseFirstResponse };
}

describe('RedisIdempotencyStore keeps the store contract', () => {
  const cases = storeContract(
    ({ clock, retentionMs, release }): StoreContractSubject => {
      const { connection, loseFirstResponse } = resendingConnection(() => redis.connection);
      return {
        store: new RedisIdempotencyStore({ redis: connection, keyPrefix: redis.prefix, clock, retentionMs, release }),
        loseFirstResponse,
      };
    },
    { releaseModes },
  );
  it('has every rule of the contract (both release modes, own writes)', () => {
    expect(cases.filter((c) => c.name.startsWith('own write')).length).toBe(2);
    expect(cases.filter((c) => c.name.startsWith('release (')).length).toBe(2);
  });
  for (const c of cases) it(c.name, c.run);
});

describe('withRedisFilter over DynamoDBIdempotencyStore keeps the store contract', () => {
  const { client, doc } = testDynamo();
  let tableName = '';
  beforeAll(async () => {
    tableName = await freshTable(client);
  });
  const cases = storeContract(
    ({ clock, retentionMs, release }): StoreContractSubject => ({
      store: withRedisFilter(new DynamoDBIdempotencyStore({ client: doc, tableName, clock, retentionMs, release }), {
        redis: redis.connection,
        keyPrefix: redis.prefix,
        clock,
      }),
      loseFirstResponse: async (call) => {
        const faults = injectDynamoDBFaults(client, {
          rules: [{ fault: 'network-after', commands: ['PutItem', 'UpdateItem'], calls: [1] }],
        });
        try {
          const result = await call();
          expect(
            faults.injected()['network-after'],
            'the first write (a claim’s PutItem, a completion’s UpdateItem) landed and its answer was lost',
          ).toBe(1);
          return result;
        } finally {
          faults.remove();
        }
      },
    }),
    { releaseModes },
  );
  for (const c of cases) it(c.name, c.run);
});

describe('withRedisFilter over MemoryIdempotencyStore keeps the store contract', () => {
  const cases = storeContract(
    ({ clock, retentionMs, release }) => {
      const inner = new MemoryIdempotencyStore({ clock, retentionMs, release });
      return {
        store: withRedisFilter(inner, { redis: redis.connection, keyPrefix: redis.prefix, clock }),
        loseFirstResponse: async (call) => {
          const before = inner.lostResponses;
          inner.loseNextResponse();
          const result = await call();
          expect(inner.lostResponses, 'an answer was lost').toBe(before + 1);
          return result;
        },
      };
    },
    { releaseModes },
  );
  for (const c of cases) it(c.name, c.run);
});
