/**
 * The Kafka source on its own and behind kafkaIdempotency on the in-memory
 * store: what a valid event is, a record's id, lane and response identifier
 * (`{ partition, offset }`), decoding values and headers, the default key (the offset, not the Kafka key),
 * duplicates acknowledged, a failure stopping its topic-partition while the
 * others go on, bad records failing alone, and eachRecord on Kafka events
 * without a middleware. (DynamoDB Local, the three strategies: test/integration/kafka.)
 */
import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import {
  eachRecord,
  kafkaHeaders,
  kafkaIdempotency,
  kafkaValue,
  type KafkaBatchResponse,
  type KafkaEvent,
  type KafkaIdempotencyOptions,
  type KafkaRecord,
} from '../../../src/index.js';
import { kafkaSource } from '../../../src/sources/kafka/kafka.js';
import { isRefusal } from '../../../src/engine/source.js';
import { BodyParseError } from '../../../src/engine/errors.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { KafkaRecordOptions } from '../../../src/testing/events.js';
import { kafkaEvent, lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

const recordsOf = (event: KafkaEvent): KafkaRecord[] => Object.values(event.records).flat();
const one = (options: KafkaRecordOptions): KafkaRecord => recordsOf(kafkaEvent([options]))[0] as KafkaRecord;
/** Why the source refuses an event, or `undefined`. */
const refusal = (event: unknown) => {
  const records = kafkaSource.records(event);
  return isRefusal(records) ? records.refused : undefined;
};
/** The records of an event the source takes. */
const listed = (event: unknown): readonly KafkaRecord[] => {
  const records = kafkaSource.records(event);
  if (isRefusal(records)) throw new Error(records.refused);
  return records;
};
const failures = (r: KafkaBatchResponse) => r.batchItemFailures.map(({ itemIdentifier: i }) => `${i.partition}@${i.offset}`);

describe('kafkaSource', () => {
  it('names a record by topic-partition and offset, runs it in its topic-partition, answers with { partition, offset }', () => {
    const record = one({ topic: 'orders.eu', partition: 3, offset: 42, value: 'x' });
    expect(kafkaSource.read(record).id).toBe('orders.eu-3:42');
    expect(kafkaSource.read(record).lane).toBe('orders.eu-3');
    expect(kafkaSource.read(record).attempt).toBe(1);
    const response = kafkaSource.respond(['orders.eu-3:42', 'my-topic-10:7']);
    expect(response).toEqual({
      batchItemFailures: [
        { itemIdentifier: { partition: 'orders.eu-3', offset: 42 } },
        { itemIdentifier: { partition: 'my-topic-10', offset: 7 } },
      ],
    });
    expect([...kafkaSource.retriedIn(response)]).toEqual(['orders.eu-3:42', 'my-topic-10:7']);
    // A string identifier (not Kafka's shape) names no record.
    expect(kafkaSource.retriedIn({ batchItemFailures: [{ itemIdentifier: 'orders.eu-3-42' }] }).size).toBe(0);
  });

  it('reads the records partition after partition, and hands on an event holding only some, grouped back', () => {
    const event = kafkaEvent([
      { partition: 0, offset: 1, value: 'a1' },
      { partition: 1, offset: 1, value: 'b1' },
      { partition: 0, offset: 2, value: 'a2' },
    ]);
    expect(listed(event).map((r) => `${r.partition}:${r.offset}`)).toEqual(['0:1', '0:2', '1:1']);
    const [a1, , b1] = listed(event) as [KafkaRecord, KafkaRecord, KafkaRecord];
    const handed = kafkaSource.withRecords(event, [a1, b1]);
    expect(handed.eventSource).toBe('aws:kafka');
    expect(Object.keys(handed.records)).toEqual(['orders-0', 'orders-1']);
    expect(listed(handed)).toEqual([a1, b1]);
  });

  it('refuses what is not a Kafka event, and names why', () => {
    expect(refusal({})).toBe('not a Kafka event (Amazon MSK or self-managed): it has no records object (keyed by topic-partition)');
    expect(refusal(sqsEvent([sqsRecord({ body: 'x' })]))).toMatch(/no records object/);
    expect(refusal({ ...kafkaEvent([]), eventSource: 'aws:kinesis' })).toMatch(/"aws:kinesis", not "aws:kafka"/);
    const noOffset = { ...one({ offset: 1, value: 'x' }), offset: -1 };
    expect(refusal({ eventSource: 'aws:kafka', records: { 'orders-0': [noOffset] } })).toMatch(
      /record 0 of "orders-0" has no topic, partition and offset/,
    );
    expect(refusal({ eventSource: 'aws:kafka', records: { 'orders-0': 'x' } })).toMatch(/is not a list/);
    expect(refusal(kafkaEvent([{ offset: 1, value: 'x' }]))).toBeUndefined();
    expect(refusal(kafkaEvent([{ offset: 1, value: 'x' }], { eventSource: 'SelfManagedKafka' }))).toBeUndefined();
  });

  it('a value or key that is not base64, or malformed headers, make the record unreadable', () => {
    const good = one({ offset: 5, key: 'k', value: 'v', headers: { h: 'x' } });
    expect(kafkaSource.read(good).unreadable).toBeUndefined();
    expect(kafkaSource.read({ ...good, value: null, key: null }).unreadable).toBeUndefined(); // a tombstone without a key
    expect(kafkaSource.read({ ...good, value: 'not base64!' }).unreadable?.message).toMatch(/Kafka record orders-0@5: value is not base64/);
    expect(kafkaSource.read({ ...good, key: 42 as never }).unreadable).toBeInstanceOf(BodyParseError);
    expect(kafkaSource.read({ ...good, headers: [{ h: 'x' as never }] }).unreadable?.message).toMatch(/headers are not a list/);
  });
});

describe('kafkaValue and kafkaHeaders', () => {
  it('reads the value: JSON when it parses, else text, else bytes; a tombstone is null; not base64 is a BodyParseError', () => {
    expect(kafkaValue(one({ offset: 1, value: { orderNo: 'o-1' } }))).toEqual({ orderNo: 'o-1' });
    expect(kafkaValue(one({ offset: 1, value: 'plain text' }))).toBe('plain text');
    const bytes = Uint8Array.from([0xff, 0xfe, 0x00]);
    expect(kafkaValue(one({ offset: 1, value: bytes }))).toEqual(Buffer.from(bytes));
    expect(kafkaValue(one({ offset: 1, value: null }))).toBeNull();
    expect(() => kafkaValue({ ...one({ offset: 1, value: 'x' }), value: '%%%' })).toThrow(BodyParseError);
    expect(kafkaValue(one({ offset: 1, value: [1, 2] }), 'json')).toEqual([1, 2]);
    for (const value of ['plain text', bytes, null]) expect(() => kafkaValue(one({ offset: 1, value }), 'json')).toThrow(BodyParseError);
  });

  it('reads headers by name as text or bytes; signed Java bytes read as the same octets; a repeated name keeps its last value', () => {
    const record = one({ offset: 1, value: 'x', headers: { 'event-id': 'e-1', bin: Uint8Array.from([0xc3, 0x28]) } });
    expect(record.headers).toEqual([{ 'event-id': [101, 45, 49] }, { bin: [0xc3, 0x28] }]);
    expect(kafkaHeaders(record, 'bytes')['bin']).toEqual(Uint8Array.from([0xc3, 0x28]));
    expect(() => kafkaHeaders(record)).toThrow(/header "bin" is not UTF-8 text/);
    const signed = { ...record, headers: [{ trace: [-61, -87] }, { trace: [104, 105] }] };
    expect(kafkaHeaders(signed, 'bytes')['trace']).toEqual(Uint8Array.from([104, 105]));
    expect(kafkaHeaders({ ...record, headers: [{ name: [-61, -87] }] })['name']).toBe('é');
    expect(kafkaHeaders({ ...record, headers: [] })).toEqual({});
  });
});

function rig(options: Partial<KafkaIdempotencyOptions> = {}) {
  const store = new MemoryIdempotencyStore();
  const runs: string[] = [];
  const effects = new Map<string, number>();
  const throwing = new Set<string>();
  const lines: BatchLogLine[] = [];
  const handler = middy<KafkaEvent, KafkaBatchResponse>()
    .use(kafkaIdempotency({ store, consumer: 'kafka-unit', logger: (l) => lines.push(l), ...options }))
    .handler(
      eachRecord(async (record, { key }) => {
        const name = `${record.partition}:${record.offset}`;
        runs.push(name);
        if (throwing.has(name)) throw new Error(`${name} fails`);
        effects.set(key, (effects.get(key) ?? 0) + 1);
      }),
    );
  const deliver = (event: KafkaEvent) => handler(event, lambdaContext({ functionName: 'kafka-consumer' }));
  const outcome = (id: string) => lines.at(-1)?.records.find((r) => r.messageId === id)?.outcome;
  return { store, runs, effects, throwing, lines, deliver, outcome };
}

describe('kafkaIdempotency with an in-memory store', () => {
  it('by default keys a record by topic-partition-offset: the same offset again is acknowledged without running', async () => {
    const t = rig();
    const first = kafkaEvent([
      { offset: 10, key: 'o-1', value: { orderNo: 'o-1' } },
      { offset: 11, key: 'o-2', value: { orderNo: 'o-2' } },
    ]);
    expect(failures(await t.deliver(first))).toEqual([]);
    // The mapping delivers offset 10 again (a retry, a rebalance).
    expect(failures(await t.deliver(kafkaEvent([{ offset: 10, key: 'o-1', value: { orderNo: 'o-1' } }])))).toEqual([]);
    expect(t.outcome('orders-0:10')).toBe('duplicate');
    expect(t.runs).toEqual(['0:10', '0:11']);
    expect(t.effects).toEqual(
      new Map([
        ['orders-0-10', 1],
        ['orders-0-11', 1],
      ]),
    );
  });

  it('the default key is not the Kafka key: two events of one customer (one partitioning key) both run, whatever their values', async () => {
    // Keyed by the Kafka key, the second would be a duplicate (same value: its effect lost) or a
    // PayloadMismatchError that blocks the partition (another value).
    const t = rig();
    const response = await t.deliver(
      kafkaEvent([
        { offset: 1, key: 'customer-7', value: { op: 'add', points: 5 } },
        { offset: 2, key: 'customer-7', value: { op: 'add', points: 5 } },
        { offset: 3, key: 'customer-7', value: { op: 'add', points: 9 } },
      ]),
    );
    expect(failures(response)).toEqual([]);
    expect(t.runs).toEqual(['0:1', '0:2', '0:3']);
    expect(t.lines.at(-1)?.records.map((r) => r.outcome)).toEqual(['completed', 'completed', 'completed']);
  });

  it('without a record key, the default key is topic-partition-offset too (a re-sent event is not recognised)', async () => {
    const t = rig();
    await t.deliver(kafkaEvent([{ offset: 7, value: { orderNo: 'o-1' } }]));
    await t.deliver(kafkaEvent([{ offset: 7, value: { orderNo: 'o-1' } }]));
    await t.deliver(kafkaEvent([{ offset: 8, value: { orderNo: 'o-1' } }]));
    expect(t.runs).toEqual(['0:7', '0:8']);
    expect([...t.effects.keys()]).toEqual(['orders-0-7', 'orders-0-8']);
  });

  it('key: (record) => record.key keys by the Kafka key where it names one event: a re-sent event is recognised', async () => {
    const t = rig({ key: (record) => record.key });
    await t.deliver(kafkaEvent([{ offset: 10, key: 'e-1', value: { orderNo: 'o-1' } }]));
    expect(failures(await t.deliver(kafkaEvent([{ offset: 12, key: 'e-1', value: { orderNo: 'o-1' } }])))).toEqual([]);
    expect(t.outcome('orders-0:12')).toBe('duplicate');
    expect(t.runs).toEqual(['0:10']);
  });

  it('a failure stops its partition: it and the later records of that partition come back, the other partition goes on in order', async () => {
    const t = rig({ key: (r) => kafkaValue<{ id: string }>(r).id });
    const records = [
      { partition: 0, offset: 1, value: { id: 'a1' } },
      { partition: 1, offset: 1, value: { id: 'b1' } },
      { partition: 0, offset: 2, value: { id: 'a2' } },
      { partition: 1, offset: 2, value: { id: 'b2' } },
      { partition: 0, offset: 3, value: { id: 'a3' } },
    ];
    t.throwing.add('0:2');
    const response = await t.deliver(kafkaEvent(records));
    expect(failures(response)).toEqual(['orders-0@2', 'orders-0@3']);
    expect(t.runs.filter((r) => r.startsWith('0:'))).toEqual(['0:1', '0:2']);
    expect(t.runs.filter((r) => r.startsWith('1:'))).toEqual(['1:1', '1:2']);
    // The mapping resumes partition 0 from offset 2: a1 and b1, b2 are not sent again.
    t.throwing.clear();
    t.runs.length = 0;
    expect(failures(await t.deliver(kafkaEvent(records.filter((r) => r.partition === 0 && r.offset >= 2))))).toEqual([]);
    expect(t.runs).toEqual(['0:2', '0:3']);
    expect([...t.effects.values()].every((n) => n === 1)).toBe(true);
    expect(t.effects.size).toBe(5);
  });

  it('bad records fail alone (value not base64, a body that does not parse, no key), each stopping only its partition', async () => {
    const t = rig({ key: (r) => kafkaValue<{ id?: string }>(r, 'json').id });
    const event = kafkaEvent([
      { partition: 0, offset: 1, value: 'x' },
      { partition: 1, offset: 1, value: '{"id": broken' },
      { partition: 2, offset: 1, value: { other: 1 } },
      { partition: 3, offset: 1, value: { id: 'd1' } },
      { partition: 3, offset: 2, value: { id: 'd2' } },
    ]);
    const p0 = event.records['orders-0'] as KafkaRecord[];
    const broken: KafkaEvent = {
      ...event,
      records: { ...event.records, 'orders-0': [{ ...(p0[0] as KafkaRecord), value: 'not base64!' }] },
    };
    const response = await t.deliver(broken);
    expect(failures(response)).toEqual(['orders-0@1', 'orders-1@1', 'orders-2@1']);
    expect(t.runs).toEqual(['3:1', '3:2']);
    const errors = t.lines
      .at(-1)
      ?.records.filter((r) => r.outcome === 'invalid')
      .map((r) => r.error?.name);
    expect(errors).toEqual(['BodyParseError', 'BodyParseError', 'MissingKeyError']);
    expect(t.lines.at(-1)?.records.find((r) => r.messageId === 'orders-1:1')?.error?.message).toMatch(/orders-1@1: the value is not JSON/);
  });

  it('refuses an event that is not a Kafka event with a TypeError naming it', async () => {
    const t = rig();
    await expect(t.deliver(sqsEvent([sqsRecord({ body: 'x' })]) as never)).rejects.toThrow(
      /kafkaIdempotency: the event is not a Kafka event \(Amazon MSK or self-managed\): it has no records object/,
    );
  });

  it('checks its options when built', () => {
    const store = new MemoryIdempotencyStore();
    expect(() => kafkaIdempotency({ store, key: 'offset' as never })).toThrow(/kafkaIdempotency: option "key"/);
    expect(() => kafkaIdempotency({ store, batchSize: 10 } as never)).toThrow(TypeError);
  });
});

describe('eachRecord on Kafka events without a middleware', () => {
  it('runs each partition in order, stops it at its first failure and names it and the later ones', async () => {
    const seen: string[] = [];
    const handler = eachRecord(async (record: KafkaRecord) => {
      const v = kafkaValue<string>(record);
      seen.push(v);
      if (v === 'a2') throw new Error('a2 fails');
    });
    const event = kafkaEvent([
      { partition: 0, offset: 1, value: 'a1' },
      { partition: 1, offset: 1, value: 'b1' },
      { partition: 0, offset: 2, value: 'a2' },
      { partition: 1, offset: 2, value: 'b2' },
      { partition: 0, offset: 3, value: 'a3' },
    ]);
    expect(failures(await handler(event, lambdaContext()))).toEqual(['orders-0@2', 'orders-0@3']);
    expect(seen.filter((s) => s.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(seen.filter((s) => s.startsWith('b'))).toEqual(['b1', 'b2']);
    await expect(handler({} as never, lambdaContext())).rejects.toThrow(
      /^eachRecord: the event is not an SQS event, nor a Kinesis, DynamoDB Streams or Kafka one \(it has no Records array, nor a records object\)\.$/,
    );
    const noOffset = { eventSource: 'aws:kafka', records: { 'orders-0': [{ topic: 'orders', partition: 0, value: 'x' }] } };
    await expect(handler(noOffset as never, lambdaContext())).rejects.toThrow(
      /^eachRecord: the event is not a Kafka event \(Amazon MSK or self-managed\): record 0 of "orders-0" has no topic, partition and offset/,
    );
  });
});
