/**
 * Red-team scenarios for the stream sources on DynamoDB Local: same-key
 * copies around a failure in one shard, copies of completed keys after a
 * failure, interleaved shards, and the transaction strategy's group commit
 * never committing a shard's later record after an earlier one failed.
 */
import middy from '@middy/core';
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
} from 'aws-lambda';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  dynamoDBImages,
  dynamoDBStreamsIdempotency,
  eachRecord,
  kinesisData,
  kinesisIdempotency,
  type KinesisIdempotencyOptions,
  transaction,
} from '../../../src/index.js';
import {
  dynamoDBStreamEvent,
  dynamoDBStreamRecord,
  kinesisStreamEvent,
  kinesisStreamRecord,
  lambdaContext,
} from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';

type Data = { key: string; n: number };
const k = (sequenceNumber: string, key: string, n: number, shardId = 'shardId-000000000000'): KinesisStreamRecord =>
  kinesisStreamRecord({ sequenceNumber, data: { key, n }, shardId });
const ids = (r: KinesisStreamBatchResponse | void) => (r as KinesisStreamBatchResponse).batchItemFailures.map((f) => f.itemIdentifier);

async function setup(options: Partial<KinesisIdempotencyOptions> = {}) {
  const { client, doc } = testDynamo();
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
  const runs: string[] = [];
  const failing = new Set<string>();
  const handler = middy<KinesisStreamEvent, KinesisStreamBatchResponse>()
    .use(kinesisIdempotency({ store, consumer: 'red2', key: (r) => kinesisData<Data>(r).key, payload: false, logger: false, ...options }))
    .handler(
      eachRecord(async (record: KinesisStreamRecord) => {
        const { key, n } = kinesisData<Data>(record);
        runs.push(`${key}/${n}`);
        if (failing.has(`${key}/${n}`)) throw new Error(`${key}/${n} fails`);
      }),
    );
  const invoke = (records: KinesisStreamRecord[]) => handler(kinesisStreamEvent(records), lambdaContext());
  return { store, runs, failing, invoke };
}

describe('stream red team: copies and failures in one shard', () => {
  it('a copy of a key completed earlier, after a failure in its shard, is named in the response with everything after it', async () => {
    const t = await setup();
    expect(ids(await t.invoke([k('10', 'a', 1)]))).toEqual([]);
    t.failing.add('x/2');
    const response = await t.invoke([k('11', 'x', 2), k('12', 'a', 3), k('13', 'y', 4)]);
    expect(ids(response)).toEqual(['11', '12', '13']);
    expect(t.runs).toEqual(['a/1', 'x/2']);
  });

  it('the same key twice in one shard with a failure between: the later copy is named, not acknowledged', async () => {
    const t = await setup();
    t.failing.add('x/2');
    const response = await t.invoke([k('1', 'a', 1), k('2', 'x', 2), k('3', 'a', 3), k('4', 'y', 4)]);
    expect(ids(response)).toEqual(['2', '3', '4']);
    expect(t.runs).toEqual(['a/1', 'x/2']);
  });

  it('the same key twice in one shard, the first copy fails: both named, the copy never runs', async () => {
    const t = await setup();
    t.failing.add('a/1');
    const response = await t.invoke([k('1', 'a', 1), k('2', 'a', 2), k('3', 'y', 3)]);
    expect(ids(response)).toEqual(['1', '2', '3']);
    expect(t.runs).toEqual(['a/1']);
  });

  it('two shards interleaved: one shard stopping does not stop the other, its later records are named', async () => {
    const t = await setup();
    t.failing.add('x/1');
    const response = await t.invoke([
      k('1', 'x', 1, 'shard-a'),
      k('2', 'b', 2, 'shard-b'),
      k('3', 'c', 3, 'shard-a'),
      k('4', 'e', 4, 'shard-b'),
      k('5', 'd', 5, 'shard-b'),
    ]);
    expect(ids(response)).toEqual(['1', '3']);
    expect(t.runs).toEqual(expect.arrayContaining(['x/1', 'b/2', 'e/4', 'd/5']));
    expect(t.runs).not.toContain('c/3');
  });

  it('long sequence numbers of different lengths keep delivery order (no string ordering)', async () => {
    const t = await setup();
    t.failing.add('x/2');
    const s1 = '49590338271490256608559692538361571095921575989136588898';
    const s2 = '495903382714902566085596925383615710959215759891365888990';
    const s3 = '5';
    const response = await t.invoke([k(s1, 'a', 1), k(s2, 'x', 2), k(s3, 'y', 3)]);
    expect(ids(response)).toEqual([s2, s3]);
    expect(t.runs).toEqual(['a/1', 'x/2']);
  });
});

describe('stream red team: transaction strategy with group commit', () => {
  it("a shard's later record never commits when the earlier one failed its commit", async () => {
    const { client, doc } = testDynamo();
    const items = await freshTable(client, businessTable);
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    const handler = middy<KinesisStreamEvent, KinesisStreamBatchResponse>()
      .use(kinesisIdempotency({ store, consumer: 'red2-tx', strategy: transaction(), key: (r) => kinesisData<Data>(r).key, logger: false }))
      .handler(
        eachRecord.inTransaction(async (record: KinesisStreamRecord, { tx }) => {
          const { key } = kinesisData<Data>(record);
          // "bad" requires an item that does not exist: its commit is cancelled by the condition.
          if (key === 'bad') tx.conditionCheck({ TableName: items, Key: { pk: 'missing' }, ConditionExpression: 'attribute_exists(pk)' });
          else tx.put({ TableName: items, Item: { pk: key } });
        }),
      );
    const response = await handler(
      kinesisStreamEvent([k('1', 'a', 1), k('2', 'bad', 2), k('3', 'c', 3), k('4', 'd', 4, 'shard-other')]),
      lambdaContext(),
    );
    expect(ids(response)).toEqual(['2', '3']);
    const get = async (pk: string) => (await doc.send(new GetCommand({ TableName: items, Key: { pk } }))).Item;
    expect(await get('a')).toBeDefined();
    expect(await get('c')).toBeUndefined();
    expect(await get('d')).toBeDefined();
  });
});

describe('stream red team: transaction strategy, copies and DynamoDB Streams records', () => {
  it('transaction + group commit: a copy of a committed key after a failed commit in its shard is named, the next record not committed', async () => {
    const { client, doc } = testDynamo();
    const items = await freshTable(client, businessTable);
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    const handler = middy<KinesisStreamEvent, KinesisStreamBatchResponse>()
      .use(
        kinesisIdempotency({
          store,
          consumer: 'red2-tx2',
          strategy: transaction(),
          key: (r) => kinesisData<Data>(r).key,
          payload: false,
          logger: false,
        }),
      )
      .handler(
        eachRecord.inTransaction(async (record: KinesisStreamRecord, { tx }) => {
          const { key, n } = kinesisData<Data>(record);
          if (key === 'bad') tx.conditionCheck({ TableName: items, Key: { pk: 'missing' }, ConditionExpression: 'attribute_exists(pk)' });
          else tx.put({ TableName: items, Item: { pk: `${key}/${n}` } });
        }),
      );
    const response = await handler(kinesisStreamEvent([k('1', 'a', 1), k('2', 'bad', 2), k('3', 'a', 3), k('4', 'y', 4)]), lambdaContext());
    expect(ids(response)).toEqual(['2', '3', '4']);
    const get = async (pk: string) => (await doc.send(new GetCommand({ TableName: items, Key: { pk } }))).Item;
    expect(await get('a/1')).toBeDefined();
    expect(await get('a/3')).toBeUndefined();
    expect(await get('y/4')).toBeUndefined();
  });

  it('DynamoDB Streams: REMOVE (OldImage only), KEYS_ONLY and Binary/Set images run once each with the default key and payload', async () => {
    const { client, doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    const seen: unknown[] = [];
    const handler = middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
      .use(dynamoDBStreamsIdempotency({ store, consumer: 'red2-ddb', logger: false }))
      .handler(
        eachRecord(async (record: DynamoDBRecord) => {
          const { newImage, oldImage } = dynamoDBImages(record);
          seen.push(newImage ?? oldImage ?? record.dynamodb?.Keys);
        }),
      );
    const removed = dynamoDBStreamRecord({
      sequenceNumber: '100',
      eventName: 'REMOVE',
      keys: { pk: { S: 'r' } },
      oldImage: { pk: { S: 'r' } },
    });
    const keysOnly = dynamoDBStreamRecord({ sequenceNumber: '200', keys: { pk: { S: 'k' } } });
    const binary = dynamoDBStreamRecord({
      sequenceNumber: '300',
      keys: { pk: { S: 'b' } },
      newImage: { pk: { S: 'b' }, bin: { B: 'AAEC' }, tags: { SS: ['x', 'y'] }, nums: { NS: ['1', '2'] } },
    });
    const event = dynamoDBStreamEvent([removed, keysOnly, binary]);
    expect((await handler(event, lambdaContext())).batchItemFailures).toEqual([]);
    expect((await handler(event, lambdaContext())).batchItemFailures).toEqual([]);
    expect(seen).toHaveLength(3);
    expect(seen[0]).toEqual({ pk: 'r' });
    expect(seen[2]).toMatchObject({ pk: 'b', bin: 'AAEC', tags: new Set(['x', 'y']) });
  });
});

describe('stream red team: a handler that answers for itself (no eachRecord)', () => {
  it('naming only the first failed record (as Lambda allows for streams): the records after it in its shard are not completed, so the retry runs them', async () => {
    const { client, doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    const runs: string[] = [];
    const handler = middy<KinesisStreamEvent, KinesisStreamBatchResponse>()
      .use(kinesisIdempotency({ store, consumer: 'red2-own', key: (r) => kinesisData<Data>(r).key, payload: false, logger: false }))
      .handler(async (event) => {
        // Processes in order and stops at the first failure, naming only it.
        for (const record of event.Records) {
          const { key } = kinesisData<Data>(record);
          if (key === 'x' && !runs.includes('x')) {
            runs.push('x');
            return { batchItemFailures: [{ itemIdentifier: record.kinesis.sequenceNumber }] };
          }
          runs.push(key);
        }
        return { batchItemFailures: [] };
      });
    const records = [k('1', 'a', 1), k('2', 'x', 2), k('3', 'b', 3), k('4', 'c', 4, 'shard-other')];
    const first = await handler(kinesisStreamEvent(records), lambdaContext());
    expect(ids(first)).toEqual(['2', '3']);
    expect(runs).toEqual(['a', 'x']);
    // The mapping resumes the shard at the failed record: b must run now.
    await handler(kinesisStreamEvent(records.slice(1, 3)), lambdaContext());
    expect(runs).toEqual(['a', 'x', 'x', 'b']);
  });
});
