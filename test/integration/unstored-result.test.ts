/**
 * A result that cannot be stored (450 KB, a BigInt) on the single-event path
 * and in `idempotent()`, against DynamoDB Local: as for a batch, the effect
 * happened and is recorded COMPLETED without its result, so the event or call
 * succeeds (never thrown for a retry that would only find a duplicate), with a
 * warning naming it; a later duplicate gets no result.
 */
import middy from '@middy/core';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  emfMetrics,
  eventBridgeIdempotency,
  eventBridgeHandler,
  idempotent,
  transaction,
} from '../../src/index.js';
import type { EmfDocument } from '../../src/observe/emf.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import { eventBridgeEvent, lambdaContext } from '../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;

const paid = (orderNo: string): OrderPaid => eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo } });
const context = (): Context => lambdaContext({ functionName: 'points-fn', timeoutMs: 30_000 });
const huge = () => 'x'.repeat(450 * 1024);

async function storeOnTable() {
  const { client, doc } = testDynamo();
  return { client, doc, store: new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) }) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('eventBridgeIdempotency: a result that cannot be stored', () => {
  it.each([
    ['450 KB', huge, 'ItemTooLargeError'],
    ['a BigInt', () => ({ total: 10n }), 'UnstorableResultError'],
  ] as const)(
    'claim strategy, %s: the event succeeds with the result, WARN line, counted; a duplicate gets none',
    async (_n, result, name) => {
      const { store } = await storeOnTable();
      const lines: BatchLogLine[] = [];
      const documents: EmfDocument[] = [];
      let runs = 0;
      const handler = middy<OrderPaid, unknown>()
        .use(
          eventBridgeIdempotency<OrderPaid, unknown>({
            store,
            consumer: 'points',
            key: (e) => e.detail.orderNo,
            logger: (l) => lines.push(l),
            metrics: emfMetrics({ emit: (d) => documents.push(d) }),
          }),
        )
        .handler(async () => {
          runs += 1;
          return result();
        });
      const event = paid(`eb-${name}`);
      await expect(handler(event, context())).resolves.toEqual(result());
      const line = lines.at(-1);
      expect(line?.counts).toMatchObject({ completed: 1, invalid: 0 });
      expect(line?.retried).toBe(0);
      expect(line?.level).toBe('WARN');
      expect(line?.records[0]?.resultNotStored?.name).toBe(name);
      expect(line?.warnings?.[0]).toMatch(new RegExp(`${event.id}.*result was not stored.*${name}`));
      expect(documents.at(-1)?.['ResultsNotStored']).toBe(1);
      const stored = await store.get(store.recordId('points', `eb-${name}`));
      expect(stored?.status).toBe('COMPLETED');
      // The redelivery is a duplicate: the handler does not run again, and there is no stored result to replay.
      await expect(handler(paid(`eb-${name}`), context())).resolves.toBeUndefined();
      expect(runs).toBe(1);
    },
  );

  it('transaction strategy, 450 KB: the write and the record commit, the event succeeds with the result', async () => {
    const { client, doc, store } = await storeOnTable();
    const business = await freshTable(client, businessTable, 'biz');
    const lines: BatchLogLine[] = [];
    const handler = middy<OrderPaid, string>()
      .use(
        eventBridgeIdempotency<OrderPaid, string>({
          store,
          consumer: 'points',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          logger: (l) => lines.push(l),
        }),
      )
      .handler(
        eventBridgeHandler.inTransaction<OrderPaid, string>(async (event, { tx }) => {
          tx.put({ TableName: business, Item: { pk: event.detail.orderNo } });
          return huge();
        }),
      );
    await expect(handler(paid('eb-tx-huge'), context())).resolves.toHaveLength(450 * 1024);
    expect(lines.at(-1)?.counts).toMatchObject({ completed: 1, invalid: 0 });
    expect(lines.at(-1)?.records[0]?.resultNotStored?.name).toBe('ItemTooLargeError');
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    expect((await doc.send(new GetCommand({ TableName: business, Key: { pk: 'eb-tx-huge' } }))).Item).toBeDefined();
    expect((await store.get(store.recordId('points', 'eb-tx-huge')))?.status).toBe('COMPLETED');
  });
});

describe('idempotent(): a result that cannot be stored', () => {
  it.each([
    ['450 KB', huge, 'ItemTooLargeError'],
    ['a BigInt', () => ({ total: 10n }), 'UnstorableResultError'],
  ] as const)(
    '%s: the call and its duplicate resolve what a duplicate gets (undefined); a WARN line names the record',
    async (_n, result, name) => {
      const { store } = await storeOnTable();
      const warned: string[] = [];
      vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void warned.push(String(line)));
      let runs = 0;
      const once = idempotent(
        async (_orderNo: string) => {
          runs += 1;
          return result();
        },
        { store, consumer: 'refunds', key: (orderNo) => orderNo },
      );
      // What a duplicate gets, as for every stored result: no caller depends on what only the first call sees.
      await expect(once(`call-${name}`)).resolves.toBeUndefined();
      expect((await store.get(store.recordId('refunds', `call-${name}`)))?.status).toBe('COMPLETED');
      expect(warned).toHaveLength(1);
      const line = JSON.parse(warned[0] ?? '{}') as Record<string, unknown>;
      expect(line).toMatchObject({ level: 'WARN', consumer: 'refunds', id: store.recordId('refunds', `call-${name}`) });
      expect(String((line['warnings'] as string[] | undefined)?.[0])).toMatch(new RegExp(`result was not stored.*${name}`));
      await expect(once(`call-${name}`)).resolves.toBeUndefined();
      expect(runs).toBe(1);
    },
  );
});
