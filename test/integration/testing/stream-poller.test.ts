import { PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKinesisStream, startKinesisLocal, type KinesisLocalHandle } from '../../../infra/kinesis-local.js';
import { streamPoller, type StreamFailure, type StreamInvocationReport } from '../../../scripts/sim/index.js';
import { testDynamo } from '../../support/dynamodb.js';
import { putOnShard, streamTable, testStreamsClient } from '../../support/streams.js';

const { client } = testDynamo();
const streams = testStreamsClient();

const put = (tableName: string, pk: string, n: number) =>
  client.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: pk }, n: { N: String(n) } } }));

const seqOf = (r: DynamoDBRecord): string => r.dynamodb?.SequenceNumber ?? '';
const pkOf = (r: DynamoDBRecord): string => r.dynamodb?.Keys?.['pk']?.S ?? '';

describe('streamPoller on DynamoDB Local streams', () => {
  it('delivers every change in order, with the Lambda record shape, transactional writes included', async () => {
    const { tableName, streamArn } = await streamTable(client);
    await put(tableName, 'a', 1);
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: tableName, Item: { pk: { S: 'b' }, n: { N: '1' } } } },
          { Put: { TableName: tableName, Item: { pk: { S: 'a' }, n: { N: '2' } } } },
        ],
      }),
    );
    const seen: DynamoDBRecord[] = [];
    const poller = streamPoller({
      source: { kind: 'dynamodb-streams', client: streams, streamArn },
      handler: (event) => {
        seen.push(...event.Records);
      },
    });
    const stats = await poller.drain();
    expect(seen.map(pkOf)).toEqual(['a', 'b', 'a']);
    expect(seen.map((r) => r.eventName)).toEqual(['INSERT', 'INSERT', 'MODIFY']);
    const modify = seen[2];
    expect(modify?.eventSource).toBe('aws:dynamodb');
    expect(modify?.eventSourceARN).toBe(streamArn);
    expect(modify?.dynamodb?.OldImage).toEqual({ pk: { S: 'a' }, n: { N: '1' } });
    expect(modify?.dynamodb?.NewImage).toEqual({ pk: { S: 'a' }, n: { N: '2' } });
    expect(modify?.dynamodb?.StreamViewType).toBe('NEW_AND_OLD_IMAGES');
    expect(typeof modify?.dynamodb?.ApproximateCreationDateTime).toBe('number');
    expect(stats).toMatchObject({ invocations: 1, processed: 3, toDestination: 0 });
    expect([...poller.checkpoints().values()]).toEqual([seqOf(modify as DynamoDBRecord)]);
    // A second drain reads from the checkpoint: only the new change.
    await put(tableName, 'c', 1);
    seen.length = 0;
    await poller.drain();
    expect(seen.map(pkOf)).toEqual(['c']);
  });

  it('checkpoints at the lowest reported sequence number and retries from there', async () => {
    const { tableName, streamArn } = await streamTable(client);
    for (const [i, pk] of ['a', 'b', 'c', 'd'].entries()) await put(tableName, pk, i);
    const reports: StreamInvocationReport[] = [];
    let failOnce = true;
    const poller = streamPoller({
      source: { kind: 'dynamodb-streams', client: streams, streamArn },
      handler: (event) => {
        const b = event.Records.find((r) => pkOf(r) === 'b');
        const c = event.Records.find((r) => pkOf(r) === 'c');
        if (!failOnce || b === undefined || c === undefined) return { batchItemFailures: [] };
        failOnce = false;
        // Reported out of order: the lowest one counts.
        return { batchItemFailures: [{ itemIdentifier: seqOf(c) }, { itemIdentifier: seqOf(b) }] };
      },
      onInvoke: (r) => reports.push(r),
    });
    await poller.drain();
    expect(reports.map((r) => r.outcome)).toEqual(['partial', 'succeeded']);
    expect(reports[0]?.sequenceNumbers).toHaveLength(4);
    expect(reports[0]?.failedAt).toBe(reports[0]?.sequenceNumbers[1]);
    expect(reports[1]?.sequenceNumbers).toEqual(reports[0]?.sequenceNumbers.slice(1));
    expect(poller.stats()).toMatchObject({ invocations: 2, failedInvocations: 1, processed: 4, toDestination: 0 });
  });

  it('bisects a batch that throws until the poison record is alone, then hands it to onFailure after the retries', async () => {
    const { tableName, streamArn } = await streamTable(client);
    for (const [i, pk] of ['a', 'b', 'poison', 'd'].entries()) await put(tableName, pk, i);
    const done: string[] = [];
    const failures: StreamFailure<DynamoDBRecord>[] = [];
    const reports: StreamInvocationReport[] = [];
    const poller = streamPoller({
      source: { kind: 'dynamodb-streams', client: streams, streamArn },
      handler: (event) => {
        if (event.Records.some((r) => pkOf(r) === 'poison')) throw new Error('poison');
        done.push(...event.Records.map(pkOf));
      },
      bisectOnError: true,
      maxRetries: 1,
      onFailure: (f) => {
        failures.push(f);
      },
      onInvoke: (r) => reports.push(r),
    });
    await poller.drain();
    expect(done).toEqual(['a', 'b', 'd']);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.reason).toBe('retries-exhausted');
    expect(failures[0]?.records.map(pkOf)).toEqual(['poison']);
    expect(failures[0]?.error).toBeInstanceOf(Error);
    // [a b poison d] threw -> [a b] ok, [poison d] threw -> [poison] threw, retried once, [d] ok
    expect(reports.map((r) => r.sequenceNumbers.length)).toEqual([4, 2, 2, 1, 1, 1]);
    expect(poller.stats().toDestination).toBe(1);
  });

  it('without bisect, a throwing batch is retried whole, then all of it goes to onFailure', async () => {
    const { tableName, streamArn } = await streamTable(client);
    for (const [i, pk] of ['a', 'b'].entries()) await put(tableName, pk, i);
    const failures: StreamFailure<DynamoDBRecord>[] = [];
    const poller = streamPoller({
      source: { kind: 'dynamodb-streams', client: streams, streamArn },
      handler: () => {
        throw new Error('down');
      },
      maxRetries: 2,
      onFailure: (f) => {
        failures.push(f);
      },
    });
    const stats = await poller.drain();
    expect(stats).toMatchObject({ invocations: 3, failedInvocations: 3, processed: 0, toDestination: 2 });
    expect(failures[0]?.records.map(pkOf)).toEqual(['a', 'b']);
  });

  it('hands records older than maxRecordAgeMs to onFailure without invoking the handler', async () => {
    const { tableName, streamArn } = await streamTable(client);
    await put(tableName, 'old', 1);
    const failures: StreamFailure<DynamoDBRecord>[] = [];
    let invoked = 0;
    const poller = streamPoller({
      source: { kind: 'dynamodb-streams', client: streams, streamArn },
      handler: () => {
        invoked += 1;
      },
      maxRecordAgeMs: 60_000,
      // Two minutes later than the change: the record is past its age.
      clock: { now: () => Date.now() + 120_000 },
      onFailure: (f) => {
        failures.push(f);
      },
    });
    const stats = await poller.drain();
    expect(invoked).toBe(0);
    expect(failures.map((f) => [f.reason, f.records.map(pkOf)])).toEqual([['record-age', ['old']]]);
    expect(stats).toMatchObject({ invocations: 0, toDestination: 1 });
  });

  it('runs in the background until stopped', async () => {
    const { tableName, streamArn } = await streamTable(client);
    const seen: string[] = [];
    let resolveSeen: () => void = () => {};
    const twoSeen = new Promise<void>((resolve) => {
      resolveSeen = resolve;
    });
    const poller = streamPoller({
      source: { kind: 'dynamodb-streams', client: streams, streamArn },
      handler: (event) => {
        seen.push(...event.Records.map(pkOf));
        if (seen.length >= 2) resolveSeen();
      },
      idleMs: 10,
    });
    poller.start();
    await put(tableName, 'a', 1);
    await put(tableName, 'b', 1);
    await twoSeen;
    await poller.stop();
    expect(seen).toEqual(['a', 'b']);
  });

  it('refuses unknown and wrong options', () => {
    const source = { kind: 'dynamodb-streams', client: streams, streamArn: 'arn' } as const;
    expect(() => streamPoller({ source, handler: () => {}, batchSize: 0 })).toThrow(/batchSize/);
    expect(() => streamPoller({ source, handler: () => {}, ...{ bisect: true } })).toThrow(/bisect/);
    expect(() => streamPoller({ source: { ...source, kind: 'sqs' as 'kinesis' } as never, handler: () => {} })).toThrow(/source/);
  });
});

describe('streamPoller on kinesalite', () => {
  let kinesis: KinesisLocalHandle;
  beforeAll(async () => {
    kinesis = await startKinesisLocal();
  });
  afterAll(async () => {
    await kinesis.stop();
  });

  it('reads each shard in order, one batch per shard, with the Lambda record shape', async () => {
    const streamName = 'poller-two-shards';
    const streamArn = await createKinesisStream(kinesis.client, streamName, 2);
    const put: Array<[0 | 1, number]> = [
      [0, 1],
      [1, 1],
      [0, 2],
      [1, 2],
      [0, 3],
    ];
    const sequence: string[] = [];
    for (const [shard, n] of put) sequence.push(await putOnShard(kinesis.client, streamName, shard, { shard, n }));
    const batches: KinesisStreamRecord[][] = [];
    const poller = streamPoller({
      source: { kind: 'kinesis', client: kinesis.client, streamName },
      handler: (event) => {
        batches.push(event.Records);
      },
      batchSize: 2,
    });
    await poller.drain();
    const byShard = (shard: string) =>
      batches
        .flat()
        .filter((r) => r.eventID.startsWith(`${shard}:`))
        .map((r) => JSON.parse(Buffer.from(r.kinesis.data, 'base64').toString()).n);
    expect(byShard('shardId-000000000000')).toEqual([1, 2, 3]);
    expect(byShard('shardId-000000000001')).toEqual([1, 2]);
    // Every batch holds one shard's records, at most batchSize.
    for (const b of batches) {
      expect(b.length).toBeLessThanOrEqual(2);
      expect(new Set(b.map((r) => r.eventID.split(':')[0])).size).toBe(1);
    }
    const first = batches.flat().find((r) => r.kinesis.sequenceNumber === sequence[0]);
    expect(first).toMatchObject({
      eventSource: 'aws:kinesis',
      eventSourceARN: streamArn,
      eventName: 'aws:kinesis:record',
      eventVersion: '1.0',
    });
    expect(first?.eventID).toBe(`shardId-000000000000:${sequence[0]}`);
    expect(poller.stats().processed).toBe(5);
  });
});
