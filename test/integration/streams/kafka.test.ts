/**
 * kafkaIdempotency on DynamoDB Local, with the three strategies: the claim
 * record, the transaction (the ledger write commits with the idempotency
 * record) and the state machine (`transition()` in eachRecord, no
 * idempotency table). There is no local Kafka: events are built with
 * kafkaEvent and redelivered as Lambda's Kafka event source mapping does,
 * each topic-partition resumed from the lowest offset the response names.
 * Proven: offset order per partition, a failure stopping its partition while
 * the others go on, duplicates (a rebalance redelivering a batch, a producer
 * re-sending an event) acknowledged without a second effect, bad records
 * failing alone.
 */
import middy from '@middy/core';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  eachRecord,
  kafkaIdempotency,
  kafkaValue,
  transition,
  type KafkaBatchResponse,
  type KafkaEvent,
  type KafkaRecord,
  type RecordContext,
  type TransactionBuilder,
} from '../../../src/index.js';
import type { Strategy } from '../../../src/batch/options.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { KafkaRecordOptions } from '../../../src/testing/events.js';
import { kafkaEvent, lambdaContext } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { runner, strategyOf } from '../../support/strategy.js';

const { client, doc } = testDynamo();

type Handler = (event: KafkaEvent) => Promise<KafkaBatchResponse>;
const failed = (r: KafkaBatchResponse) => r.batchItemFailures.map(({ itemIdentifier: i }) => `${i.partition}@${i.offset}`);

/**
 * Lambda's mapping, in small: deliver every record, then again each
 * partition named in the response from its lowest named offset on, until
 * nothing is named or `rounds` deliveries were made.
 */
async function drain(handler: Handler, records: readonly KafkaRecordOptions[], rounds = 5): Promise<KafkaBatchResponse[]> {
  const responses: KafkaBatchResponse[] = [];
  let pending = [...records];
  while (pending.length > 0 && responses.length < rounds) {
    const response = await handler(kafkaEvent(pending));
    responses.push(response);
    const from = new Map<string, number>();
    for (const { itemIdentifier: i } of response.batchItemFailures)
      from.set(i.partition, Math.min(i.offset, from.get(i.partition) ?? i.offset));
    pending = pending.filter((r) => r.offset >= (from.get(`${r.topic ?? 'orders'}-${r.partition ?? 0}`) ?? Number.POSITIVE_INFINITY));
  }
  return responses;
}

const order = (partition: number, offset: number, orderNo: string): KafkaRecordOptions => ({
  partition,
  offset,
  key: orderNo,
  value: { orderNo },
});

async function setup(strategy: Strategy) {
  const ledger = await freshTable(client, businessTable, 'kafka-ledger');
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
  const runs: string[] = [];
  const lines: BatchLogLine[] = [];
  const failing = new Map<string, number>();
  const middleware = middy<KafkaEvent, KafkaBatchResponse>()
    .use(
      kafkaIdempotency({
        store,
        consumer: 'kafka-test',
        strategy: strategyOf(strategy),
        key: (r) => kafkaValue<{ orderNo?: string }>(r, 'json').orderNo,
        logger: (l) => lines.push(l),
      }),
    )
    .handler(
      runner(strategy)(async (record: KafkaRecord, { key, tx }: RecordContext & { readonly tx?: TransactionBuilder }) => {
        runs.push(`${record.partition}:${key}`);
        const left = failing.get(key) ?? 0;
        if (left > 0) {
          failing.set(key, left - 1);
          throw new Error(`${key} fails`);
        }
        const effect = {
          TableName: ledger,
          Key: { pk: key },
          UpdateExpression: 'ADD applied :one',
          ExpressionAttributeValues: { ':one': 1 },
        };
        if (tx !== undefined) tx.update(effect);
        else await doc.send(new UpdateCommand(effect));
      }),
    );
  const handler: Handler = (event) => middleware(event, lambdaContext({ functionName: 'kafka-fn', timeoutMs: 30_000 }));
  const applied = async (k: string) =>
    (await doc.send(new GetCommand({ TableName: ledger, Key: { pk: k }, ConsistentRead: true }))).Item?.['applied'];
  const outcomes = () => Object.fromEntries((lines.at(-1)?.records ?? []).map((r) => [r.messageId, r.outcome]));
  return { store, runs, lines, failing, handler, applied, outcomes };
}

describe.each<Strategy>(['claim', 'transaction'])('kafkaIdempotency on DynamoDB Local, strategy %s', (strategy) => {
  it('runs each partition in offset order; a failure stops its partition, which resumes from it, while the other goes on', async () => {
    const t = await setup(strategy);
    const records = [order(0, 10, 'a1'), order(1, 20, 'b1'), order(0, 11, 'a2'), order(1, 21, 'b2'), order(0, 12, 'a3')];
    t.failing.set('a2', 1);
    const [first, second, ...rest] = await drain(t.handler, records);
    expect(failed(first as KafkaBatchResponse)).toEqual(['orders-0@11', 'orders-0@12']);
    expect(failed(second as KafkaBatchResponse)).toEqual([]);
    expect(rest).toEqual([]);
    // Partition 0 in offset order, twice a2 (the failure, then the retry); partition 1 never redelivered.
    expect(t.runs.filter((r) => r.startsWith('0:'))).toEqual(['0:a1', '0:a2', '0:a2', '0:a3']);
    expect(t.runs.filter((r) => r.startsWith('1:'))).toEqual(['1:b1', '1:b2']);
    for (const k of ['a1', 'a2', 'a3', 'b1', 'b2']) expect(await t.applied(k)).toBe(1);
  });

  it('a batch redelivered whole (a rebalance) and an event re-sent under a new offset are acknowledged, nothing applied twice', async () => {
    const t = await setup(strategy);
    const batch = [order(0, 1, 'r1'), order(1, 1, 'r2')];
    expect(failed((await drain(t.handler, batch))[0] as KafkaBatchResponse)).toEqual([]);
    // The consumer group rebalanced before the offsets were committed: the same records again.
    expect(failed(await t.handler(kafkaEvent(batch)))).toEqual([]);
    expect(t.outcomes()).toEqual({ 'orders-0:1': 'duplicate', 'orders-1:1': 'duplicate' });
    // The producer timed out and re-sent r1: a new offset, the same business key.
    expect(failed(await t.handler(kafkaEvent([order(0, 2, 'r1')])))).toEqual([]);
    expect(t.outcomes()).toEqual({ 'orders-0:2': 'duplicate' });
    // The claim strategy finds the duplicate before the handler; the transaction when it commits (the handler's writes dropped).
    if (strategy === 'claim') expect(t.runs).toEqual(['0:r1', '1:r2']);
    else expect(t.runs).toEqual(['0:r1', '1:r2', '0:r1', '1:r2', '0:r1']);
    expect(await t.applied('r1')).toBe(1);
    expect(await t.applied('r2')).toBe(1);
  });

  it('bad records (value not base64, a body that does not parse, no key) fail alone; each stops only its partition', async () => {
    const t = await setup(strategy);
    const event = kafkaEvent([
      { partition: 0, offset: 1, value: 'x' },
      { partition: 1, offset: 1, value: '{"orderNo": broken' },
      { partition: 2, offset: 1, value: { other: true } },
      order(3, 1, 'g1'),
      order(3, 2, 'g2'),
    ]);
    const p0 = event.records['orders-0']?.[0] as KafkaRecord;
    const response = await t.handler({ ...event, records: { ...event.records, 'orders-0': [{ ...p0, value: '%%% not base64' }] } });
    expect(failed(response)).toEqual(['orders-0@1', 'orders-1@1', 'orders-2@1']);
    const errors = (t.lines.at(-1)?.records ?? []).filter((r) => r.outcome === 'invalid').map((r) => r.error?.name);
    expect(errors).toEqual(['BodyParseError', 'BodyParseError', 'MissingKeyError']);
    expect(t.runs).toEqual(['3:g1', '3:g2']);
    expect(await t.applied('g1')).toBe(1);
    expect(await t.applied('g2')).toBe(1);
  });
});

describe('the state machine on Kafka: transition() in eachRecord, no idempotency table', () => {
  async function setup() {
    const orders = await freshTable(client, businessTable, 'kafka-orders');
    const calls: string[] = [];
    const handler = eachRecord(async (record: KafkaRecord) => {
      const { orderNo } = kafkaValue<{ orderNo: string }>(record, 'json');
      calls.push(`${record.partition}:${orderNo}`);
      const r = await transition(doc, { tableName: orders, key: { pk: orderNo }, from: 'PENDING', to: 'PAID' });
      // `already`: a redelivery found the order PAID, acknowledged; anything else comes back.
      if (r.kind !== 'applied' && r.kind !== 'already') throw new Error(`order ${orderNo}: ${r.kind}`);
    });
    const run: Handler = (event) => handler(event, lambdaContext({ timeoutMs: 30_000 }));
    const create = (pk: string, status = 'PENDING') => doc.send(new PutCommand({ TableName: orders, Item: { pk, status } }));
    const read = async (pk: string) => (await doc.send(new GetCommand({ TableName: orders, Key: { pk }, ConsistentRead: true }))).Item;
    return { calls, run, create, read };
  }

  it('a duplicate finds its target state and is acknowledged; one version bump per order', async () => {
    const s = await setup();
    for (const no of ['s1', 's2']) await s.create(no);
    const batch = [order(0, 1, 's1'), order(1, 1, 's2')];
    expect(failed(await s.run(kafkaEvent(batch)))).toEqual([]);
    expect(failed(await s.run(kafkaEvent([...batch, order(0, 2, 's1')])))).toEqual([]);
    expect(await s.read('s1')).toEqual({ pk: 's1', status: 'PAID', version: 1 });
    expect(await s.read('s2')).toEqual({ pk: 's2', status: 'PAID', version: 1 });
  });

  it('a conflict stops its partition in order (the later records come back unrun); the other partition goes on', async () => {
    const s = await setup();
    await s.create('c1');
    await s.create('c2', 'CANCELLED');
    await s.create('c3');
    await s.create('d1');
    const response = await s.run(kafkaEvent([order(0, 5, 'c1'), order(0, 6, 'c2'), order(1, 5, 'd1'), order(0, 7, 'c3')]));
    expect(failed(response)).toEqual(['orders-0@6', 'orders-0@7']);
    expect(s.calls.filter((c) => c.startsWith('0:'))).toEqual(['0:c1', '0:c2']);
    expect((await s.read('c3'))?.['status']).toBe('PENDING');
    expect((await s.read('d1'))?.['status']).toBe('PAID');
  });
});
