/**
 * kinesisIdempotency on a real Kinesis (kinesalite, two shards) through the
 * local stream poller, with the store on DynamoDB Local: order per shard,
 * stop at the first failure with its sequence number, redeliveries (retry,
 * bisection) acknowledged without re-running, a bad record failing alone,
 * and the other shard going on.
 */
import middy from '@middy/core';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKinesisStream, startKinesisLocal, type KinesisLocalHandle } from '../../../infra/kinesis-local.js';
import {
  DynamoDBIdempotencyStore,
  eachRecord,
  kinesisData,
  kinesisIdempotency,
  type KinesisIdempotencyOptions,
} from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { streamPoller, type StreamFailure, type StreamInvocationReport } from '../../../scripts/sim/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { putOnShard } from '../../support/streams.js';

let kinesis: KinesisLocalHandle;
beforeAll(async () => {
  kinesis = await startKinesisLocal();
});
afterAll(async () => {
  await kinesis.stop();
});

type Order = { orderNo: string };
const orderNo = (r: KinesisStreamRecord): string => kinesisData<Order>(r).orderNo;

async function setup(streamName: string, options: Partial<KinesisIdempotencyOptions> = {}) {
  await createKinesisStream(kinesis.client, streamName, 2);
  const { client, doc } = testDynamo();
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
  const runs: string[] = [];
  const effects = new Map<string, number>();
  const lines: BatchLogLine[] = [];
  const responses: KinesisStreamBatchResponse[] = [];
  /** Per order: how many more times it fails. */
  const failing = new Map<string, number>();
  const middleware = middy<KinesisStreamEvent, KinesisStreamBatchResponse>()
    .use(kinesisIdempotency({ store, consumer: 'kinesis-test', key: orderNo, logger: (l) => lines.push(l), ...options }))
    .handler(
      eachRecord(async (record: KinesisStreamRecord) => {
        const no = orderNo(record);
        runs.push(no);
        const left = failing.get(no) ?? 0;
        if (left > 0) {
          failing.set(no, left - 1);
          throw new Error(`${no} fails`);
        }
        effects.set(no, (effects.get(no) ?? 0) + 1);
      }),
    );
  const handler = async (event: KinesisStreamEvent, context: Context) => {
    const response = await middleware(event, context);
    responses.push(response);
    return response;
  };
  const put = (shard: 0 | 1, no: string) => putOnShard(kinesis.client, streamName, shard, { orderNo: no });
  return { store, runs, effects, lines, responses, failing, handler, middleware, put };
}

const ids = (r: KinesisStreamBatchResponse | undefined) => r?.batchItemFailures.map((f) => f.itemIdentifier);

describe('kinesisIdempotency on kinesalite', () => {
  it('runs each shard in order, stops a shard at its first failure (named by sequence number), the other shard goes on', async () => {
    const t = await setup('k-order');
    const s = {
      a1: await t.put(0, 'a1'),
      b1: await t.put(1, 'b1'),
      a2: await t.put(0, 'a2'),
      b2: await t.put(1, 'b2'),
      a3: await t.put(0, 'a3'),
    };
    t.failing.set('a2', 1);
    const reports: StreamInvocationReport[] = [];
    const poller = streamPoller({
      source: { kind: 'kinesis', client: kinesis.client, streamName: 'k-order' },
      handler: t.handler,
      onInvoke: (r) => reports.push(r),
    });
    const stats = await poller.drain();
    const shard0 = reports.filter((r) => r.shardId === 'shardId-000000000000');
    // The first batch of shard 0 failed at a2: the response names a2 and a3 (not run), Lambda checkpoints before a2.
    expect(shard0[0]).toMatchObject({ outcome: 'partial', failedAt: s.a2 });
    expect(t.responses.map(ids)).toContainEqual([s.a2, s.a3]);
    expect(shard0[1]).toMatchObject({ outcome: 'succeeded', sequenceNumbers: [s.a2, s.a3] });
    expect(t.runs.filter((n) => n.startsWith('a'))).toEqual(['a1', 'a2', 'a2', 'a3']);
    // Shard 1 is not held back by shard 0.
    expect(reports.filter((r) => r.shardId === 'shardId-000000000001')).toEqual([
      expect.objectContaining({ outcome: 'succeeded', sequenceNumbers: [s.b1, s.b2] }),
    ]);
    expect(t.runs.filter((n) => n.startsWith('b'))).toEqual(['b1', 'b2']);
    expect(Object.fromEntries(t.effects)).toEqual({ a1: 1, a2: 1, a3: 1, b1: 1, b2: 1 });
    expect(stats).toMatchObject({ processed: 5, toDestination: 0 });
  });

  it('a whole-batch retry (the function failed after its records completed) is acknowledged without running them again', async () => {
    const t = await setup('k-retry');
    for (const no of ['r1', 'r2', 'r3']) await t.put(0, no);
    let crashes = 1;
    const poller = streamPoller({
      source: { kind: 'kinesis', client: kinesis.client, streamName: 'k-retry' },
      handler: async (event: KinesisStreamEvent, context: Context) => {
        const response = await t.handler(event, context);
        if (crashes-- > 0) throw new Error('the function died before answering');
        return response;
      },
    });
    const stats = await poller.drain();
    expect(stats).toMatchObject({ invocations: 2, failedInvocations: 1, processed: 3 });
    expect(t.runs).toEqual(['r1', 'r2', 'r3']);
    expect(Object.fromEntries(t.effects)).toEqual({ r1: 1, r2: 1, r3: 1 });
    expect(t.lines.at(-1)?.counts.duplicate).toBe(3);
  });

  it('bisection redelivers completed halves: acknowledged through the idempotency record', async () => {
    const t = await setup('k-bisect');
    for (const no of ['h1', 'h2', 'h3', 'h4']) await t.put(1, no);
    let crashes = 1;
    const reports: StreamInvocationReport[] = [];
    const poller = streamPoller({
      source: { kind: 'kinesis', client: kinesis.client, streamName: 'k-bisect' },
      handler: async (event: KinesisStreamEvent, context: Context) => {
        const response = await t.handler(event, context);
        if (crashes-- > 0) throw new Error('timed out after the work');
        return response;
      },
      bisectOnError: true,
      maxRetries: 0,
      onInvoke: (r) => reports.push(r),
    });
    await poller.drain();
    expect(reports.map((r) => [r.outcome, r.sequenceNumbers.length])).toEqual([
      ['threw', 4],
      ['succeeded', 2],
      ['succeeded', 2],
    ]);
    expect(t.runs).toEqual(['h1', 'h2', 'h3', 'h4']);
    expect(Object.fromEntries(t.effects)).toEqual({ h1: 1, h2: 1, h3: 1, h4: 1 });
  });

  it('a record that cannot be read fails alone and stops its shard; the other shard goes on', async () => {
    const t = await setup('k-bad');
    await t.put(0, 'g1');
    const bad = await putOnShard(kinesis.client, 'k-bad', 0, new TextEncoder().encode('not json at all'));
    const after = await t.put(0, 'g2');
    await t.put(1, 'o1');
    const failures: StreamFailure<KinesisStreamRecord>[] = [];
    const poller = streamPoller({
      source: { kind: 'kinesis', client: kinesis.client, streamName: 'k-bad' },
      handler: t.handler,
      maxRetries: 1,
      onFailure: (f) => {
        failures.push(f);
      },
    });
    await poller.drain();
    // Every answer for shard 0 names the bad record first, then the one after it, never g1.
    const shard0 = t.responses.filter((r) => r.batchItemFailures.length > 0);
    expect(shard0.map(ids)).toEqual([
      [bad, after],
      [bad, after],
    ]);
    expect(t.lines.flatMap((l) => l.records).find((r) => r.messageId === bad)).toMatchObject({
      outcome: 'invalid',
      error: { name: 'MissingKeyError' },
    });
    // After the retries the mapping moves past the batch from the bad record on, as Lambda does.
    expect(failures.map((f) => f.records.map((r) => r.kinesis.sequenceNumber))).toEqual([[bad, after]]);
    expect(t.runs).toEqual(expect.arrayContaining(['g1', 'o1']));
    expect(t.runs).not.toContain('g2');
    expect(Object.fromEntries(t.effects)).toEqual({ g1: 1, o1: 1 });
  });

  it('by default a record is keyed by its eventID (shardId:sequenceNumber)', async () => {
    const t = await setup('k-default-key', { key: undefined as never });
    const seq = await t.put(0, 'd1');
    await streamPoller({ source: { kind: 'kinesis', client: kinesis.client, streamName: 'k-default-key' }, handler: t.handler }).drain();
    const record = await t.store.get(t.store.recordId('kinesis-test', `shardId-000000000000:${seq}`));
    expect(record?.status).toBe('COMPLETED');
  });
});
