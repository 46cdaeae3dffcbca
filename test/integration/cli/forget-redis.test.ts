/**
 * `forget` with a Redis filter in front of DynamoDB (DynamoDB Local and a
 * real redis-server): the filter's completed marker answers a key in every
 * container for the record's whole retention, so forgetting the DynamoDB
 * record alone would leave the key acknowledged without running the handler.
 * Each "container" is a fresh store, filter and middleware.
 */
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openMarkerRedis, RedisUnavailableError, redactedUrl } from '../../../cli/redis.js';
import { DynamoDBIdempotencyStore, eachRecord, jsonBody, sqsIdempotency, withRedisFilter } from '../../../src/index.js';
import { lambdaContext, ManualClock, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { rawItem } from '../../support/store.js';
import { testRedis, type TestRedis } from '../redis/support.js';
import { closedPort, localEnv, runCli } from './support.js';

let redis: TestRedis;
let table: string;
const clock = new ManualClock(Date.now());
const { doc } = testDynamo();

beforeAll(async () => {
  redis = await testRedis();
  table = await freshTable(testDynamo().client, undefined, 'cli');
});
afterAll(async () => {
  await redis.close();
});

/** A fresh Lambda container: its own store, filter and middleware, counting the handler's runs per order. */
function container(runs: Map<string, number>) {
  const inner = new DynamoDBIdempotencyStore({ client: testDynamo().doc, tableName: table, clock });
  const store = withRedisFilter(inner, { redis: redis.connection, keyPrefix: redis.prefix, clock });
  const handler = middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: 'payments',
        key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
        logger: () => {},
      }),
    )
    .handler(
      eachRecord(async (_record, { key }) => {
        runs.set(key, (runs.get(key) ?? 0) + 1);
      }),
    );
  const deliver = async (orderNo: string): Promise<SQSBatchResponse | undefined> =>
    handler(sqsEvent([sqsRecord({ body: JSON.stringify({ orderNo }) })]), lambdaContext({ clock }));
  return { store, deliver };
}

const markerOf = (orderNo: string): string => `${redis.prefix}payments#${orderNo}`;
const marker = async (orderNo: string): Promise<unknown> => redis.client.get(markerOf(orderNo));
const forgetArgs = (orderNo: string, ...more: string[]): string[] => [
  'forget',
  '--table',
  table,
  '--consumer',
  'payments',
  '--key',
  orderNo,
  '--yes',
  '--redis-key-prefix',
  redis.prefix,
  ...more,
];
const auditOf = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;

describe('effectively-once forget with withRedisFilter in front of DynamoDB', () => {
  it('with --redis-url removes the filter marker too, so a fresh container runs the handler again', async () => {
    const k = `o-${randomUUID()}`;
    const runs = new Map<string, number>();
    expect((await container(runs).deliver(k))?.batchItemFailures).toEqual([]);
    expect(runs.get(k)).toBe(1);
    expect(await marker(k)).toMatch(/^COMPLETED /);

    const run = await runCli(forgetArgs(k, '--redis-url', inject('redisUrl'), '--json'));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`removed the filter's marker ${markerOf(k)} (COMPLETED) from Redis at ${inject('redisUrl')}`);
    expect(run.stderr).not.toContain('warning');
    expect(auditOf(run.stdout)).toMatchObject({
      id: `payments#${k}`,
      statusBefore: 'COMPLETED',
      redisMarker: { url: inject('redisUrl'), key: markerOf(k), removed: true, statusBefore: 'COMPLETED' },
    });
    expect(await rawItem(doc, table, { id: `payments#${k}` })).toBeUndefined();
    expect(await marker(k)).toBeNull();

    // A new container, as after a deploy or a scale-out: nothing answers the key, so the handler runs.
    const fresh = container(runs);
    expect((await fresh.deliver(k))?.batchItemFailures).toEqual([]);
    expect(runs.get(k)).toBe(2);
    expect(fresh.store.counts().completedHits).toBe(0);
  });

  it('takes the URL from REDIS_URL', async () => {
    const k = `o-${randomUUID()}`;
    const runs = new Map<string, number>();
    await container(runs).deliver(k);
    const run = await runCli(forgetArgs(k), { env: { ...localEnv(), REDIS_URL: inject('redisUrl') } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`removed the filter's marker ${markerOf(k)} (COMPLETED)`);
    await container(runs).deliver(k);
    expect(runs.get(k)).toBe(2);
  });

  it('without a Redis URL warns that the marker still answers, with the redis-cli command; forget with one then removes it', async () => {
    const k = `o-${randomUUID()}`;
    const runs = new Map<string, number>();
    await container(runs).deliver(k);

    const run = await runCli(forgetArgs(k));
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `warning: if this table's consumers use withRedisFilter, its marker ${markerOf(k)} in Redis still answers this key as a duplicate`,
    );
    expect(run.stderr).toContain('--redis-url URL (or REDIS_URL');
    expect(run.stderr).toContain(`redis-cli -u URL DEL '${markerOf(k)}'`);
    expect(auditOf(run.stdout)).toMatchObject({ statusBefore: 'COMPLETED', redisMarker: null });
    expect(await rawItem(doc, table, { id: `payments#${k}` })).toBeUndefined();

    // What the warning is about: the DynamoDB record is gone, yet a fresh container is answered "duplicate".
    const stillFiltered = container(runs);
    expect((await stillFiltered.deliver(k))?.batchItemFailures).toEqual([]);
    expect(runs.get(k)).toBe(1);
    expect(stillFiltered.store.counts().completedHits).toBe(1);

    // As the warning says: run forget again with the URL. No record, but the marker is found and removed.
    const again = await runCli(forgetArgs(k, '--redis-url', inject('redisUrl')));
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('no live record');
    expect(again.stderr).toContain(`but the filter's marker ${markerOf(k)}`);
    expect(again.stderr).toContain(`removed the filter's marker ${markerOf(k)} (COMPLETED)`);
    expect(auditOf(again.stdout)).toMatchObject({ statusBefore: null, redisMarker: { key: markerOf(k), removed: true } });
    await container(runs).deliver(k);
    expect(runs.get(k)).toBe(2);
  });

  it('without a record and without a marker exits 1 and says where it looked', async () => {
    const k = `never-${randomUUID()}`;
    const run = await runCli(forgetArgs(k, '--redis-url', inject('redisUrl'), '--plain-keys'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no filter marker either: tried ${markerOf(k)}`);
    expect(run.stdout).toBe('');
  });

  it('a Redis where nothing listens: exit 1, nothing deleted', async () => {
    const k = `o-${randomUUID()}`;
    await container(new Map()).deliver(k);
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const run = await runCli(forgetArgs(k, '--redis-url', url));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot use Redis at ${url} (--redis-url) (ECONNREFUSED)`);
    expect(run.stderr).toContain('Nothing was deleted.');
    expect(await rawItem(doc, table, { id: `payments#${k}` })).toMatchObject({ status: 'COMPLETED' });
    expect(await marker(k)).toMatch(/^COMPLETED /);
  });

  it('without the redis package says to install it (the client is imported only for a Redis URL)', async () => {
    const notInstalled = () => import(`redis-not-installed-${randomUUID()}`);
    const opening = openMarkerRedis({ url: inject('redisUrl'), from: '--redis-url', keyPrefix: 'eo:m:' }, notInstalled);
    await expect(opening).rejects.toThrow(RedisUnavailableError);
    await expect(opening).rejects.toThrow(
      'needs the "redis" package (node-redis 5 or 6), which did not load. It is an optional peer dependency: npm install redis',
    );
  });

  it('never prints a password from the Redis URL', () => {
    expect(redactedUrl('rediss://ops:s3cret@cache.example.com:6379/0')).toBe('rediss://ops:***@cache.example.com:6379/0');
    expect(redactedUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });
});
