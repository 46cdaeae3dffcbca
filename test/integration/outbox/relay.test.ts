import { GetCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { DynamoDBStreamEvent, EventBridgeEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eventBridgeIdempotency, eventBridgeHandler, outboxRelay, transaction } from '../../../src/index.js';
import type { OutboxRelayLogLine } from '../../../src/strategies/transaction/outbox/relay.js';
import type { TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { eventBridgeEvent, lambdaContext, sqsEvent } from '../../../src/testing/index.js';
import { readStream } from '../../../scripts/local/dynamodb-stream.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { harness, order } from '../sqs/harness.js';

import { detailOf, fakeEventBridge, keys, outboxRecordIndex, sequenceNumbers, setup, streamTable } from './relay-support.js';

describe('outboxRelay() on the real stream', () => {
  it('publishes every new outbox item in batches of 10, ignores other records, and marks them published with a TTL', async () => {
    const { doc, event, items } = await setup(keys(12));
    expect(event.Records).toHaveLength(13);
    const bus = fakeEventBridge();
    const relay = outboxRelay({ eventBridge: bus.client, client: doc, eventBusName: 'orders', clock: { now: () => 1_000_000 } });
    expect(await relay(event)).toEqual({ batchItemFailures: [] });
    expect(bus.calls.map((c) => c.length)).toEqual([10, 2]);
    expect(bus.published.map((e) => detailOf(e).orderNo).sort()).toEqual(keys(12).sort());
    expect(bus.published.every((e) => e.Source === 'shop' && e.DetailType === 'OrderPaid' && e.EventBusName === 'orders')).toBe(true);
    const stored = await items();
    expect(stored).toHaveLength(12);
    for (const item of stored) {
      expect(item).toMatchObject({ outboxStatus: 'PUBLISHED', publishedAt: 1_000_000, expiresAt: 1_000 + 86_400 });
      expect(bus.published.some((e) => detailOf(e).outboxId === item['outboxId'])).toBe(true);
    }
  });

  it('keeps a published item for retentionMs (its TTL); the name before 1.0, retention, is an unknown option', async () => {
    const { doc, event, items } = await setup(keys(2));
    const bus = fakeEventBridge();
    const clock = { now: () => 1_000_000 };
    expect(await outboxRelay({ eventBridge: bus.client, client: doc, clock, retentionMs: 3_600_000 })(event)).toEqual({
      batchItemFailures: [],
    });
    for (const item of await items()) expect(item).toMatchObject({ outboxStatus: 'PUBLISHED', expiresAt: 1_000 + 3_600 });
    expect(() => outboxRelay({ eventBridge: bus.client, client: doc, retention: 3_600_000 } as never)).toThrow(
      /outboxRelay: unknown option "retention"/,
    );
  });

  it('retries a refused entry alone, once, and reports nothing when it then goes through', async () => {
    const { doc, event } = await setup(keys(3));
    const bus = fakeEventBridge((entry, seen) => detailOf(entry).orderNo === 'k1' && seen === 1);
    expect(await outboxRelay({ eventBridge: bus.client, client: doc })(event)).toEqual({ batchItemFailures: [] });
    expect(bus.calls.map((c) => c.map((e) => detailOf(e).orderNo))).toEqual([expect.arrayContaining(['k0', 'k1', 'k2']), ['k1']]);
    expect(bus.published).toHaveLength(3);
  });

  it('reports an entry refused twice, by sequence number, with every record after it; leaves it PENDING', async () => {
    const { doc, event, items } = await setup(keys(4));
    const bus = fakeEventBridge((entry) => detailOf(entry).orderNo === 'k2');
    const response = await outboxRelay({ eventBridge: bus.client, client: doc })(event);
    const failedAt = outboxRecordIndex(event, 'k2');
    expect(failedAt).toBeGreaterThan(0);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(sequenceNumbers(event).slice(failedAt));
    const stored = await items();
    expect(stored.filter((i) => i['outboxStatus'] === 'PENDING').map((i) => JSON.parse(String(i['detail'])).orderNo)).toEqual(['k2']);
    expect(stored.filter((i) => i['outboxStatus'] === 'PUBLISHED')).toHaveLength(3);
  });

  describe('logging refused entries', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('logs one structured JSON line per entry still refused after its retry (outboxId, sequence number, error code and message)', async () => {
      const { doc, event, items } = await setup(keys(4));
      // k1 goes through on its retry (no line); k2 is refused every time.
      const bus = fakeEventBridge((entry, seen) => detailOf(entry).orderNo === 'k2' || (detailOf(entry).orderNo === 'k1' && seen === 1));
      const stdout = vi.spyOn(console, 'log').mockImplementation(() => undefined);
      await outboxRelay({ eventBridge: bus.client, client: doc })(event);
      const lines = stdout.mock.calls.map(([text]) => JSON.parse(String(text)) as Record<string, unknown>);
      const k2 = (await items()).find((i) => JSON.parse(String(i['detail'])).orderNo === 'k2');
      expect(lines).toEqual([
        {
          level: 'WARN',
          message: 'outbox entry refused',
          outboxId: k2?.['outboxId'],
          table: expect.stringMatching(/^outbox-/),
          sequenceNumber: sequenceNumbers(event)[outboxRecordIndex(event, 'k2')],
          error: { code: 'InternalFailure', message: 'refused' },
        },
      ]);
    });

    it('hands the lines to a logger of one’s own, or none with logger: false; a request that threw is logged per entry by its error', async () => {
      const { doc, event } = await setup(keys(2));
      const throwing = {
        send: async (): Promise<never> => {
          throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
        },
      };
      const lines: OutboxRelayLogLine[] = [];
      await outboxRelay({ eventBridge: throwing, client: doc, logger: (line) => lines.push(line) })(event);
      expect(lines.map((l) => l.error)).toEqual([
        { code: 'ThrottlingException', message: 'Rate exceeded' },
        { code: 'ThrottlingException', message: 'Rate exceeded' },
      ]);
      expect(new Set(lines.map((l) => l.outboxId)).size).toBe(2);
      const stdout = vi.spyOn(console, 'log').mockImplementation(() => undefined);
      await outboxRelay({ eventBridge: throwing, client: doc, logger: false })(event);
      expect(stdout).not.toHaveBeenCalled();
    });
  });

  it('deletes published items with afterPublish: "delete"', async () => {
    const { doc, event, items } = await setup(keys(2));
    const bus = fakeEventBridge();
    expect(await outboxRelay({ eventBridge: bus.client, client: doc, afterPublish: 'delete' })(event)).toEqual({ batchItemFailures: [] });
    expect(await items()).toEqual([]);
    expect(bus.published).toHaveLength(2);
  });

  it('a crash after PutEvents, before the mark, publishes again with the same outboxId, which the consumer dedups', async () => {
    const { doc, event, items } = await setup(keys(1));
    const bus = fakeEventBridge();
    const crashing = {
      send: async () => {
        throw new Error('relay killed before the mark');
      },
    } as unknown as DynamoDBDocumentClient;
    const first = await outboxRelay({ eventBridge: bus.client, client: crashing })(event);
    expect(first.batchItemFailures).not.toEqual([]);
    expect((await items())[0]?.['outboxStatus']).toBe('PENDING');
    // The mapping retries from the reported sequence number.
    const from = sequenceNumbers(event).indexOf(first.batchItemFailures[0]?.itemIdentifier ?? '');
    const retry = { Records: event.Records.slice(from) };
    expect(await outboxRelay({ eventBridge: bus.client, client: doc })(retry)).toEqual({ batchItemFailures: [] });
    expect(bus.published).toHaveLength(2);
    const ids = bus.published.map((e) => detailOf(e).outboxId);
    expect(ids[0]).toBe(ids[1]);
    expect((await items())[0]?.['outboxStatus']).toBe('PUBLISHED');

    // A consumer keyed on outboxId applies the effect once.
    const h = await harness();
    let effects = 0;
    const consumer = middy<EventBridgeEvent<string, { outboxId: string }>>()
      .use(eventBridgeIdempotency({ store: h.store, consumer: 'points', key: (e) => (e.detail as { outboxId: string }).outboxId }))
      .handler(
        eventBridgeHandler(async () => {
          effects += 1;
        }),
      );
    for (const entry of bus.published) {
      const delivered = eventBridgeEvent({ source: entry.Source ?? '', detailType: entry.DetailType ?? '', detail: detailOf(entry) });
      await consumer(delivered, lambdaContext());
    }
    expect(effects).toBe(1);
  });

  it('checks its options and its event', async () => {
    const { doc } = testDynamo();
    const bus = fakeEventBridge();
    expect(() => outboxRelay({ eventBridge: bus.client, client: doc, afterPublish: 'mark-it' as 'mark' })).toThrow(/afterPublish/);
    expect(() => outboxRelay({ client: doc } as unknown as Parameters<typeof outboxRelay>[0])).toThrow(/eventBridge/);
    expect(() =>
      outboxRelay({ eventBridge: bus.client, client: doc, colour: 'red' } as unknown as Parameters<typeof outboxRelay>[0]),
    ).toThrow(TypeError);
    await expect(outboxRelay({ eventBridge: bus.client, client: doc })({} as DynamoDBStreamEvent)).rejects.toThrow(TypeError);
  });

  it('publishes only the items before a malformed one: those after it are reported, and publishing them now would publish them twice', async () => {
    const { doc, event } = await setup(keys(3));
    const positions = ['k0', 'k1', 'k2'].map((k) => outboxRecordIndex(event, k)).sort((a, b) => a - b);
    const broken = positions[1] ?? -1;
    const image = event.Records[broken]?.dynamodb?.NewImage;
    if (image !== undefined) delete image['source']; // an outbox item without its source cannot be published
    const bus = fakeEventBridge();
    const response = await outboxRelay({ eventBridge: bus.client, client: doc })(event);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(sequenceNumbers(event).slice(broken));
    const before = event.Records.slice(0, broken).filter((r) => r.dynamodb?.NewImage?.['outboxId'] !== undefined);
    expect(bus.published).toHaveLength(before.length);
    expect(before.length).toBe(1);
  });

  it('fails a malformed outbox item alone (from its sequence number on) and publishes the rest', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client, streamTable, 'outbox');
    await doc.send(new PutCommand({ TableName: table, Item: { pk: 'a', outboxId: 'a', source: 'shop' } }));
    const bus = fakeEventBridge();
    const event = await readStream(client, table);
    const response = await outboxRelay({ eventBridge: bus.client, client: doc })(event);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(sequenceNumbers(event));
    expect(bus.published).toEqual([]);
    expect((await doc.send(new GetCommand({ TableName: table, Key: { pk: 'a' } }))).Item?.['outboxStatus']).toBeUndefined();
  });

  it('marks an item of a table with a sort key (tx.outbox() with sortKeyAttribute) by its full key', async () => {
    const h = await harness();
    const { client, doc } = testDynamo();
    const table = await freshTable(
      client,
      {
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      },
      'sorted',
    );
    const emit: TransactionRecordHandler = (_r, { key, tx }) => {
      tx.outbox({ source: 'shop', detailType: 'OrderPaid', detail: { orderNo: key } }, { tableName: table, sortKeyAttribute: 'sk' });
    };
    await h.txHandler(emit, { strategy: transaction() })(sqsEvent([order('k0')]), h.context());
    const bus = fakeEventBridge();
    expect(await outboxRelay({ eventBridge: bus.client, client: doc })(await readStream(client, table))).toEqual({ batchItemFailures: [] });
    expect(bus.published.map((e) => detailOf(e).orderNo)).toEqual(['k0']);
    const stored = (await doc.send(new ScanCommand({ TableName: table }))).Items ?? [];
    expect(stored).toEqual([expect.objectContaining({ outboxStatus: 'PUBLISHED' })]);
  });
});
