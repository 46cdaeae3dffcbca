/**
 * The middlewares end to end on the Redis store and on the filter over
 * DynamoDB (DynamoDB Local + redis-server): SQS claim and transaction
 * strategies, EventBridge; and what a duplicate costs in DynamoDB requests
 * with and without the filter.
 */
import middy from '@middy/core';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  RedisIdempotencyStore,
  eachRecord,
  eventBridgeIdempotency,
  jsonBody,
  sqsIdempotency,
  withRedisFilter,
  type IdempotencyStore,
  type SqsIdempotencyOptions,
  transaction,
} from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { EitherRecordHandler } from '../../support/strategy.js';
import { eventBridgeEvent, lambdaContext, ManualClock, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { countRequests } from '../../support/store.js';
import { testRedis, type TestRedis } from './support.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  await redis.close();
});

const order = (orderNo: string, extra: Record<string, unknown> = {}) => sqsRecord({ body: JSON.stringify({ orderNo, ...extra }) });
const failedIds = (r: SQSBatchResponse | undefined) => (r?.batchItemFailures ?? []).map((f) => f.itemIdentifier);

async function dynamoStore(clock: ManualClock) {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  return { doc, requests: countRequests(doc), store: new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock }) };
}

/** The three ways to run the claim strategy: DynamoDB alone, Redis alone, the filter over DynamoDB. */
async function stores(clock: ManualClock): Promise<Array<[string, IdempotencyStore]>> {
  const redisOnly = new RedisIdempotencyStore({ redis: redis.connection, keyPrefix: `${redis.prefix}store:`, clock });
  const filtered = withRedisFilter((await dynamoStore(clock)).store, {
    redis: redis.connection,
    keyPrefix: `${redis.prefix}marker:`,
    clock,
  });
  return [
    ['RedisIdempotencyStore', redisOnly],
    ['withRedisFilter(DynamoDB)', filtered],
  ];
}

function sqsHandler(
  store: IdempotencyStore,
  fn: EitherRecordHandler,
  options: Partial<SqsIdempotencyOptions> = {},
  lines: BatchLogLine[] = [],
) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: 'orders',
        key: (r) => jsonBody<{ orderNo?: string }>(r).orderNo,
        logger: (l) => lines.push(l),
        ...options,
      }),
    )
    .handler(options.strategy?.kind === 'transaction' ? eachRecord.inTransaction(fn) : eachRecord(fn));
}

describe('sqsIdempotency (claim strategy) on Redis', () => {
  it('applies each order once across duplicates, re-sends and a failed attempt, for each store', async () => {
    const clock = new ManualClock(Date.now());
    for (const [name, store] of await stores(clock)) {
      const effects = new Map<string, number>();
      let failOnce = true;
      const handler = sqsHandler(store, (_r, { key }) => {
        if (key === 'o-3' && failOnce) {
          failOnce = false;
          throw new Error('downstream unavailable');
        }
        effects.set(key, (effects.get(key) ?? 0) + 1);
      });
      const context = lambdaContext({ functionName: 'orders-fn', timeoutMs: 30_000, clock });
      const first = [order('o-1'), order('o-2'), order('o-3')];
      expect(failedIds(await handler(sqsEvent(first), context)), name).toEqual([first[2]?.messageId]);
      const again = [order('o-1'), order('o-2'), order('o-3'), order('o-4')]; // redeliveries and re-sends
      expect(failedIds(await handler(sqsEvent(again), context)), name).toEqual([]);
      expect(Object.fromEntries(effects), name).toEqual({ 'o-1': 1, 'o-2': 1, 'o-3': 1, 'o-4': 1 });
    }
  });

  it('a re-send with another payload is invalid, not acknowledged, with each store', async () => {
    const clock = new ManualClock(Date.now());
    for (const [name, store] of await stores(clock)) {
      const lines: BatchLogLine[] = [];
      const handler = sqsHandler(store, () => {}, { payload: (r) => r.body }, lines);
      const context = lambdaContext({ functionName: 'orders-fn', timeoutMs: 30_000, clock });
      await handler(sqsEvent([order('p-1', { amount: 1 })]), context);
      const changed = order('p-1', { amount: 2 });
      expect(failedIds(await handler(sqsEvent([changed]), context)), name).toEqual([changed.messageId]);
      expect(lines.at(-1)?.records[0], name).toMatchObject({ outcome: 'invalid' });
    }
  });

  it('the Redis store is refused for strategy "transaction" with a TypeError naming "store"', () => {
    const store = new RedisIdempotencyStore({ redis: redis.connection });
    expect(() => sqsIdempotency({ store, key: () => 'k', strategy: transaction() })).toThrow(/"store"/);
  });
});

describe('DynamoDB requests per duplicate delivery', () => {
  it('a batch of hot duplicates costs 2 DynamoDB requests without the filter (its INSERTs, the read of the items they met) and 0 with it', async () => {
    const clock = new ManualClock(Date.now());
    const plain = await dynamoStore(clock);
    const behind = await dynamoStore(clock);
    const filtered = withRedisFilter(behind.store, { redis: redis.connection, keyPrefix: redis.prefix, clock });
    const context = lambdaContext({ functionName: 'orders-fn', timeoutMs: 30_000, clock });
    const cost: Record<string, string[]> = {};
    for (const [name, store, requests] of [
      ['without', plain.store, plain.requests],
      ['with', filtered, behind.requests],
    ] as const) {
      const handler = sqsHandler(store, () => {});
      const keys = Array.from({ length: 10 }, (_, i) => `hot-${i}`);
      await handler(sqsEvent(keys.map((k) => order(k))), context);
      requests.reset();
      const dupes = keys.map((k) => order(k));
      expect(failedIds(await handler(sqsEvent(dupes), context))).toEqual([]);
      cost[name] = [...requests.commands];
    }
    // Without the filter the ten claims go in one BatchExecuteStatement; each meets its item, and the ten are read at once.
    expect(cost).toEqual({ without: ['BatchExecuteStatementCommand', 'BatchGetItemCommand'], with: [] });
    expect(filtered.counts().completedHits).toBe(10);
  });
});

describe('sqsIdempotency (transaction strategy) through the filter', () => {
  it('commits once; a duplicate is acknowledged from the marker with no DynamoDB request', async () => {
    const clock = new ManualClock(Date.now());
    const { doc, requests, store } = await dynamoStore(clock);
    const business = await freshTable(testDynamo().client, businessTable, 'biz');
    const filtered = withRedisFilter(store, { redis: redis.connection, keyPrefix: redis.prefix, clock });
    const award: EitherRecordHandler = (_r, { key, tx }) => {
      if (tx === undefined) throw new Error('eachRecord.inTransaction hands tx');
      tx.update({
        TableName: business,
        Key: { pk: 'customer#c1' },
        UpdateExpression: 'ADD points :p',
        ExpressionAttributeValues: { ':p': 10 },
      });
      tx.put({ TableName: business, Item: { pk: `ledger#${key}` } });
    };
    const handler = sqsHandler(filtered, award, { strategy: transaction() });
    const context = lambdaContext({ functionName: 'orders-fn', timeoutMs: 30_000, clock });
    expect(failedIds(await handler(sqsEvent([order('t-1'), order('t-2')]), context))).toEqual([]);
    requests.reset();
    expect(failedIds(await handler(sqsEvent([order('t-1'), order('t-2')]), context))).toEqual([]);
    expect(requests.commands).toEqual([]);
    const balance = (await doc.send(new GetCommand({ TableName: business, Key: { pk: 'customer#c1' } }))).Item?.['points'];
    expect(balance).toBe(20);
  });
});

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; amount: number }>;

describe('eventBridgeIdempotency on Redis', () => {
  it('runs an event once and replays its result to a re-publish, for each store', async () => {
    const clock = new ManualClock(Date.now());
    for (const [name, store] of await stores(clock)) {
      let runs = 0;
      const handler = middy<OrderPaid, { awarded: number }>()
        .use(
          eventBridgeIdempotency<OrderPaid, { awarded: number }>({
            store,
            consumer: 'points',
            key: (e) => e.detail.orderNo,
            logger: false,
          }),
        )
        .handler(async (event) => {
          runs += 1;
          return { awarded: event.detail.amount * 2 };
        });
      const paid = () => eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'e-1', amount: 5 } });
      const context = lambdaContext({ functionName: 'points-fn', timeoutMs: 30_000, clock });
      expect(await handler(paid(), context), name).toEqual({ awarded: 10 });
      expect(await handler(paid(), context), name).toEqual({ awarded: 10 });
      expect(runs, name).toBe(1);
    }
  });
});
