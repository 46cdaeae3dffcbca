/**
 * Chaos for Redis: a queue drained through the SQS middleware while its own
 * redis-server is stopped, killed and restarted empty, or flushed mid-run.
 * With the filter over DynamoDB every invariant holds (each order's effect
 * once, the queue drained, nothing dead-lettered); with the Redis store
 * alone a data loss lets a completed key run again, as docs/redis.md says.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedisLocal, type RedisLocalHandle } from '../../../infra/redis-local.js';
import {
  DynamoDBIdempotencyStore,
  RedisIdempotencyStore,
  eachRecord,
  jsonBody,
  sqsIdempotency,
  withRedisFilter,
  type IdempotencyStore,
} from '../../../src/index.js';
import { CrashPoint, ManualClock, injectDynamoDBFaults, lambdaContext, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { SqsQueueSimulator, drain } from '../../../scripts/sim/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { testRedis, type TestRedis } from './support.js';

const started: RedisLocalHandle[] = [];
const clients: TestRedis[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

/** A redis-server of this test's own, so killing or flushing it disturbs no other test. */
async function ownRedis(port?: number): Promise<RedisLocalHandle> {
  const server = await startRedisLocal({ ignoreEnv: true, ...(port === undefined ? {} : { port }) });
  started.push(server);
  return server;
}

async function connect(server: RedisLocalHandle, offlineQueue: boolean): Promise<TestRedis> {
  const redis = await testRedis(server.url, { offlineQueue });
  clients.push(redis);
  return redis;
}

/** Runs before each batch with the number of records delivered so far; each step runs once, at its threshold. */
function disruptions(steps: Array<[number, () => Promise<void>]>): (delivered: number) => Promise<void> {
  const pending = [...steps];
  return async (delivered) => {
    while (pending[0] !== undefined && delivered >= pending[0][0]) await pending.shift()?.[1]();
  };
}

/**
 * Drains 30 orders, each also re-sent by the producer once its effect is
 * applied (a hot duplicate, delivered after all the originals), through
 * `store`. Two invocations crash after their claim, at the 26th and 27th
 * effect (late, so their redeliveries meet markers written after any early
 * disruption). `disrupt` runs before each batch. About 60 deliveries.
 * A crash kills its whole invocation: the other records of its batch stop at
 * their crash point (or their next DynamoDB request), as in a dead process;
 * they used to complete late, and a completion slower than the redelivery let
 * the effect run twice. Each crash is the first record of its batch to reach
 * the crash point, so no sibling applied an effect before the process died
 * (one that had would be applied again: the claim strategy's documented window).
 */
async function run(store: IdempotencyStore, clock: ManualClock, disrupt: (delivered: number) => Promise<void>) {
  const dlq = new SqsQueueSimulator({ name: 'orders-dlq', clock });
  const queue = new SqsQueueSimulator({ name: 'orders', clock, visibilityTimeoutMs: 60_000, maxReceiveCount: 10, deadLetterQueue: dlq });
  const orders = Array.from({ length: 30 }, (_, i) => `o-${i}`);
  for (const orderNo of orders) queue.send(JSON.stringify({ orderNo }));
  const effects = new Map<string, number>();
  const crash = new CrashPoint(25, 2);
  let delivered = 0;
  const middleware = middy<SQSEvent, SQSBatchResponse>()
    .use(sqsIdempotency({ store, consumer: 'chaos', key: (r) => jsonBody<{ orderNo?: string }>(r).orderNo, logger: false }))
    .handler(
      eachRecord(async (_record, { key }) => {
        await crash.hit();
        const count = (effects.get(key) ?? 0) + 1;
        effects.set(key, count);
        if (count === 1) queue.send(JSON.stringify({ orderNo: key })); // a producer re-send, after the effect
      }),
    );
  const handler = async (event: SQSEvent, context: Context) => {
    delivered += event.Records.length;
    await disrupt(delivered);
    return middleware(event, context);
  };
  const report = await drain({ queue, handler, clock, batchSize: 5, timeoutMs: 20_000, concurrency: 2, maxPolls: 500 });
  return { orders, effects, report, dlq, crash };
}

function expectEffectivelyOnce(result: Awaited<ReturnType<typeof run>>): void {
  expect(result.report.drained).toBe(true);
  expect(result.crash.crashes).toBe(2);
  expect(result.dlq.size()).toBe(0);
  for (const orderNo of result.orders) expect(result.effects.get(orderNo), orderNo).toBe(1);
  expect(result.effects.size).toBe(result.orders.length);
}

/** `timeoutMs`: short where Redis is expected to hang, long where a slow (shared) machine must not count as a failure. */
async function filteredStore(redis: TestRedis, clock: ManualClock, timeoutMs = 50) {
  const { client, doc } = testDynamo();
  // No faults, only checkpoints: a crashed invocation's requests stop, as they would with its process gone.
  injectDynamoDBFaults(client, { rules: [] });
  const inner = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client), clock });
  return withRedisFilter(inner, { redis: redis.connection, clock, timeoutMs });
}

describe('chaos: the filter over DynamoDB while Redis fails', () => {
  it('undisturbed: the filter answers hot duplicates and every invariant holds', async () => {
    const server = await ownRedis();
    const clock = new ManualClock(Date.now());
    const store = await filteredStore(await connect(server, false), clock, 10_000);
    const result = await run(store, clock, async () => {});
    expectEffectivelyOnce(result);
    // Each re-send is queued by the handler before its original completes; the other poller may take it
    // before the completion (and its marker) lands, and then DynamoDB answers it. So most, not all 30, are
    // filter hits: a loaded machine made it 27-29 of 30. A filter that never answered would give 0.
    expect(store.counts().completedHits).toBeGreaterThanOrEqual(15);
    expect(store.counts().errors + store.counts().timeouts).toBe(0);
  });

  it('Redis stopped mid-run: DynamoDB decides every record; nothing doubled, nothing lost', async () => {
    const server = await ownRedis();
    const clock = new ManualClock(Date.now());
    const store = await filteredStore(await connect(server, false), clock);
    const result = await run(store, clock, disruptions([[45, () => server.stop()]]));
    expectEffectivelyOnce(result);
    const counts = store.counts();
    expect(counts.completedHits).toBeGreaterThan(0); // the filter did answer before the outage
    expect(counts.errors + counts.timeouts).toBeGreaterThan(0); // and failed after it
  });

  it('Redis killed and restarted empty mid-run (commands queued meanwhile): every invariant holds', async () => {
    const server = await ownRedis();
    const clock = new ManualClock(Date.now());
    const redis = await connect(server, true);
    const store = await filteredStore(redis, clock);
    let markersAtRestart = 0;
    const restart = async () => {
      await ownRedis(server.port);
      markersAtRestart = store.counts().markersWritten;
    };
    const result = await run(
      store,
      clock,
      disruptions([
        [10, () => server.kill()],
        [20, restart],
      ]),
    );
    expectEffectivelyOnce(result);
    expect(store.counts().markersWritten).toBeGreaterThan(markersAtRestart); // the filter works again after the restart
    expect(store.counts().errors + store.counts().timeouts).toBeGreaterThan(0);
  });

  it('FLUSHALL mid-run: markers are gone, DynamoDB still holds every decision', async () => {
    const server = await ownRedis();
    const clock = new ManualClock(Date.now());
    const redis = await connect(server, false);
    const store = await filteredStore(redis, clock);
    let flushedHits = -1;
    const flush = async () => {
      await redis.client.flushAll();
      flushedHits = store.counts().completedHits;
    };
    const result = await run(
      store,
      clock,
      disruptions([
        [10, flush],
        [20, flush],
      ]),
    );
    expectEffectivelyOnce(result);
    expect(store.counts().completedHits).toBeGreaterThan(flushedHits);
    expect(store.counts().misses).toBeGreaterThan(0);
  });
});

describe('chaos: the Redis store alone loses what Redis loses', () => {
  it('after a restart without persistence, a completed key runs again (the documented duplicate)', async () => {
    const server = await ownRedis();
    const clock = new ManualClock(Date.now());
    const redis = await connect(server, false);
    const store = new RedisIdempotencyStore({ redis: redis.connection, clock });
    let runs = 0;
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, consumer: 'emails', key: (r) => jsonBody<{ orderNo?: string }>(r).orderNo, logger: false }))
      .handler(eachRecord(() => void (runs += 1)));
    const context = lambdaContext({ functionName: 'emails-fn', timeoutMs: 30_000, clock });
    const send = () => handler(sqsEvent([sqsRecord({ body: JSON.stringify({ orderNo: 'welcome-1' }) })]), context);

    await send();
    await send();
    expect(runs).toBe(1); // deduplicated while Redis remembers

    await server.kill();
    await ownRedis(server.port); // same port, empty: the client reconnects to a server that forgot
    for (let i = 0; i < 100 && !redis.client.isReady; i++) await new Promise((r) => setTimeout(r, 20));
    await send();
    expect(runs).toBe(2); // the duplicate a Redis data loss lets through
  });
});
