/**
 * The Kinesis and DynamoDB Streams sources on their own: what a valid event
 * is, a record's id and lane, decoding, and bad records failing alone while
 * stopping their shard (in-memory store; the real servers are in
 * test/integration/streams).
 */
import middy from '@middy/core';
import type { DynamoDBRecord, DynamoDBStreamEvent, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { dynamoDBImages, dynamoDBStreamsIdempotency, eachRecord, kinesisData, kinesisIdempotency } from '../../../src/index.js';
import { BodyParseError } from '../../../src/engine/errors.js';
import { isRefusal, type BatchSource } from '../../../src/engine/source.js';
import { dynamoDBStreamsSource, kinesisSource } from '../../../src/sources/streams/adapter.js';
import {
  MemoryIdempotencyStore,
  dynamoDBStreamEvent,
  dynamoDBStreamRecord,
  kinesisStreamEvent,
  kinesisStreamRecord,
  lambdaContext,
  sqsEvent,
  sqsRecord,
} from '../../../src/testing/index.js';

const k = (sequenceNumber: string, data: unknown, shardId = 'shardId-000000000000'): KinesisStreamRecord =>
  kinesisStreamRecord({ sequenceNumber, data, shardId });
const d = (sequenceNumber: string, pk: string): DynamoDBRecord =>
  dynamoDBStreamRecord({ sequenceNumber, keys: { pk: { S: pk } }, newImage: { pk: { S: pk }, n: { N: '1' } } });
/** Why a source refuses an event, or `undefined`. */
const refusal = <TEvent, TRecord>(source: BatchSource<TEvent, TRecord, unknown>, event: unknown) => {
  const records = source.records(event);
  return isRefusal(records) ? records.refused : undefined;
};
const failures = (response: unknown) =>
  (response as { batchItemFailures: { itemIdentifier: string }[] }).batchItemFailures.map((f) => f.itemIdentifier);

describe('kinesisSource', () => {
  it('names a record by its sequence number and runs it in its shard (eventID before ":")', () => {
    const record = k('42', 'x', 'shardId-000000000003');
    expect(kinesisSource.read(record).id).toBe('42');
    expect(kinesisSource.read(record).lane).toBe('shardId-000000000003');
    expect(kinesisSource.read(record).attempt).toBe(1);
    // No eventID: the stream is one lane, never "no order".
    expect(kinesisSource.read({ ...record, eventID: undefined as never }).lane).toBe(record.eventSourceARN);
  });

  it('refuses what is not a Kinesis event, and names why', () => {
    expect(refusal(kinesisSource, {})).toBe('not a Kinesis stream event: it has no Records array');
    expect(refusal(kinesisSource, sqsEvent([sqsRecord({ body: 'x' })]))).toMatch(/"aws:sqs", not "aws:kinesis"/);
    const noSequence = { ...k('1', 'x'), kinesis: { ...k('1', 'x').kinesis, sequenceNumber: '' } };
    expect(refusal(kinesisSource, { Records: [noSequence] })).toMatch(/record 0 has no string kinesis.sequenceNumber/);
    expect(refusal(kinesisSource, kinesisStreamEvent([k('1', 'x')]))).toBeUndefined();
  });

  it('reads data: JSON when it parses, else text, else bytes; not base64 is a BodyParseError', () => {
    expect(kinesisData(k('1', { orderNo: 'o-1' }))).toEqual({ orderNo: 'o-1' });
    expect(kinesisData(k('1', 'plain text'))).toBe('plain text');
    const bytes = Uint8Array.from([0xff, 0xfe, 0x00]);
    expect(kinesisData(k('1', bytes))).toEqual(Buffer.from(bytes));
    const bad = { ...k('7', 'x'), kinesis: { ...k('7', 'x').kinesis, data: 'not base64!' } };
    expect(() => kinesisData(bad)).toThrow(BodyParseError);
    expect(kinesisSource.read(bad).unreadable).toBeInstanceOf(BodyParseError);
    expect(kinesisSource.read(bad).unreadable?.message).toMatch(/Kinesis record 7: data is not base64/);
    expect(kinesisSource.read(k('1', 'ok')).unreadable).toBeUndefined();
  });
});

describe('dynamoDBStreamsSource', () => {
  it('names a record by dynamodb.SequenceNumber; the batch (one shard) is one lane: the stream', () => {
    const record = d('100', 'a');
    expect(dynamoDBStreamsSource.read(record).id).toBe('100');
    expect(dynamoDBStreamsSource.read(record).lane).toBe(record.eventSourceARN);
  });

  it('refuses what is not a DynamoDB Streams event', () => {
    expect(refusal(dynamoDBStreamsSource, { Records: 'no' })).toMatch(/no Records array/);
    expect(refusal(dynamoDBStreamsSource, kinesisStreamEvent([k('1', 'x')]))).toMatch(/"aws:kinesis", not "aws:dynamodb"/);
    expect(refusal(dynamoDBStreamsSource, { Records: [{ eventSource: 'aws:dynamodb', dynamodb: {} }] })).toMatch(/SequenceNumber/);
    expect(refusal(dynamoDBStreamsSource, dynamoDBStreamEvent([d('1', 'a')]))).toBeUndefined();
  });

  it('unmarshalls images; one that cannot be read is a BodyParseError and the record unreadable', () => {
    const modify = dynamoDBStreamRecord({
      sequenceNumber: '2',
      keys: { pk: { S: 'a' } },
      oldImage: { pk: { S: 'a' }, n: { N: '1' } },
      newImage: { pk: { S: 'a' }, n: { N: '2' }, tags: { SS: ['x'] } },
    });
    const images = dynamoDBImages<{ pk: string; n: number; tags?: Set<string> }>(modify);
    expect(images.oldImage).toEqual({ pk: 'a', n: 1 });
    expect(images.newImage?.n).toBe(2);
    expect(images.newImage?.tags).toEqual(new Set(['x']));
    const bad = { ...modify, dynamodb: { ...modify.dynamodb, NewImage: { n: { Q: '1' } } } } as unknown as DynamoDBRecord;
    expect(() => dynamoDBImages(bad)).toThrow(BodyParseError);
    expect(dynamoDBStreamsSource.read(bad).unreadable).toBeInstanceOf(BodyParseError);
    expect(dynamoDBStreamsSource.read({ ...modify, dynamodb: undefined }).unreadable).toBeInstanceOf(BodyParseError);
    // A number beyond 2^53 is readable (the handler chooses wrapNumbers): not a bad record.
    const big = { ...modify, dynamodb: { ...modify.dynamodb, NewImage: { n: { N: '123456789012345678901234567890' } } } } as DynamoDBRecord;
    expect(dynamoDBStreamsSource.read(big).unreadable).toBeUndefined();
  });
});

describe('eachRecord on stream events without a middleware', () => {
  it('runs each Kinesis shard in order, stops a shard at its first failure and names it and the later ones', async () => {
    const records = [
      k('1', 'a1', 'shard-a'),
      k('2', 'b1', 'shard-b'),
      k('3', 'a2', 'shard-a'),
      k('4', 'b2', 'shard-b'),
      k('5', 'a3', 'shard-a'),
    ];
    const seen: string[] = [];
    const handler = eachRecord(async (record: KinesisStreamRecord) => {
      const data = kinesisData<string>(record);
      seen.push(data);
      if (data === 'a2') throw new Error('a2 fails');
    });
    const response = await handler(kinesisStreamEvent(records), lambdaContext());
    expect(failures(response)).toEqual(['3', '5']);
    expect(seen.filter((s) => s.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(seen.filter((s) => s.startsWith('b'))).toEqual(['b1', 'b2']);
  });
});

describe('the stream middlewares with an in-memory store', () => {
  const context = () => lambdaContext({ functionName: 'stream-consumer' });

  it('refuse an event that is not a stream event with a TypeError', async () => {
    const store = new MemoryIdempotencyStore();
    const kin = middy<KinesisStreamEvent>()
      .use(kinesisIdempotency({ store }))
      .handler(eachRecord(async (_record: KinesisStreamRecord) => undefined));
    await expect(kin(sqsEvent([sqsRecord({ body: 'x' })]) as never, context())).rejects.toThrow(
      /kinesisIdempotency: the event is not a Kinesis stream event: record 0 comes from "aws:sqs"/,
    );
    const ddb = middy<DynamoDBStreamEvent>()
      .use(dynamoDBStreamsIdempotency({ store }))
      .handler(eachRecord(async (_record: DynamoDBRecord) => undefined));
    await expect(ddb({} as never, context())).rejects.toThrow(TypeError);
  });

  it('a record that cannot be decoded fails alone and stops its shard; the other shard goes on', async () => {
    const store = new MemoryIdempotencyStore();
    const bad = { ...k('2', 'x', 'shard-a'), kinesis: { ...k('2', 'x', 'shard-a').kinesis, data: '%%%' } };
    const records = [k('1', 'a1', 'shard-a'), bad, k('3', 'a3', 'shard-a'), k('4', 'b1', 'shard-b')];
    const seen: string[] = [];
    const handler = middy<KinesisStreamEvent>()
      .use(kinesisIdempotency({ store, logger: false }))
      .handler(eachRecord(async (record: KinesisStreamRecord) => void seen.push(kinesisData<string>(record))));
    const response = await handler(kinesisStreamEvent(records), context());
    expect(failures(response)).toEqual(['2', '3']);
    expect(seen).toEqual(expect.arrayContaining(['a1', 'b1']));
    expect(seen).not.toContain('a3');
  });

  it('by default a DynamoDB record is keyed by its eventID: a redelivery is acknowledged without running', async () => {
    const store = new MemoryIdempotencyStore();
    const runs: string[] = [];
    const handler = middy<DynamoDBStreamEvent>()
      .use(dynamoDBStreamsIdempotency({ store, logger: false }))
      .handler(eachRecord(async (record: DynamoDBRecord) => void runs.push(record.eventID ?? '')));
    const records = [d('1', 'a'), d('2', 'b')];
    expect(failures(await handler(dynamoDBStreamEvent(records), context()))).toEqual([]);
    expect(failures(await handler(dynamoDBStreamEvent(records), context()))).toEqual([]);
    expect(runs).toEqual(records.map((r) => r.eventID));
  });
});
