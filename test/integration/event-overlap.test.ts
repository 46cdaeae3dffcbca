/**
 * Issue 34 item 1: two EventBridge invocations overlapping in one process
 * (Lambda Managed Instances, local runners, tests) share one Lambda context
 * object, and a parser after the middleware replaces the event while it
 * awaits. Each invocation must find its own run: commit its own key, with
 * its own business write, in its own transaction.
 */
import middy, { type Request } from '@middy/core';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eventBridgeIdempotency, eventBridgeHandler, transaction } from '../../src/index.js';
import { eventBridgeEvent, lambdaContext } from '../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;

/** A promise and the function that settles it: lets the test order the two invocations' steps. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * Tables, a store, and the handler: eventBridgeIdempotency (transaction
 * strategy), then `between` (a middleware after ours), then a eventBridgeHandler
 * handler that writes the order under the key it was given.
 */
async function setup(between: (request: Request<OrderPaid, string>) => void | Promise<void>) {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  const orders = await freshTable(client, businessTable, 'orders');
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table });
  const handler = middy<OrderPaid, string>()
    .use(
      eventBridgeIdempotency<OrderPaid, string>({
        store,
        consumer: 'orders',
        strategy: transaction(),
        key: (e) => e.detail.orderNo,
        logger: false,
      }),
    )
    .before(between)
    .handler(
      eventBridgeHandler.inTransaction<OrderPaid, string>(async (event, { key, tx }) => {
        tx.put({ TableName: orders, Item: { pk: event.detail.orderNo, committedUnderKey: key } });
        return key;
      }),
    );
  const item = async (pk: string) => (await doc.send(new GetCommand({ TableName: orders, Key: { pk }, ConsistentRead: true }))).Item;
  const record = async (key: string) => (await store.get(store.recordId('orders', key)))?.status;
  return { handler, item, record };
}

describe('overlapping EventBridge invocations sharing one context (transaction strategy)', () => {
  it('each invocation commits its own key and business write when a parser replaced the event while the other ran', async () => {
    // Per order: the parser has the event (entered), and may hand on its replacement (parsed).
    const entered = new Map([
      ['A', gate()],
      ['B', gate()],
    ]);
    const parsed = new Map([
      ['A', gate()],
      ['B', gate()],
    ]);
    // A parser: awaits (validation, a schema fetched once), then hands on a new event object without the envelope's id.
    const { handler, item, record } = await setup(async (request) => {
      const { orderNo } = request.event.detail;
      entered.get(orderNo)?.open();
      await parsed.get(orderNo)?.opened;
      request.event = { ...request.event, id: undefined as unknown as string, detail: { ...request.event.detail } };
    });
    const shared = lambdaContext({ functionName: 'orders', timeoutMs: 30_000 });
    const paid = (orderNo: string) => eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo } });
    // A's parser holds A's event; B runs through, parser and commit; then A's parser goes on.
    const a = handler(paid('A'), shared);
    await entered.get('A')?.opened;
    parsed.get('B')?.open();
    const b = await Promise.allSettled([handler(paid('B'), shared)]);
    parsed.get('A')?.open();
    const results = [...(await Promise.allSettled([a])), ...b];
    const summary = results.map((r) =>
      r.status === 'fulfilled' ? r.value : `${(r.reason as Error).name}: ${(r.reason as Error).message}`,
    );
    expect({
      results: summary,
      writes: [(await item('A'))?.committedUnderKey, (await item('B'))?.committedUnderKey],
      records: [await record('A'), await record('B')],
    }).toEqual({ results: ['A', 'B'], writes: ['A', 'B'], records: ['COMPLETED', 'COMPLETED'] });
  });

  it('a middleware after it that replaces the Lambda context too is refused with a TypeError saying so; nothing is committed', async () => {
    const { handler, item, record } = await setup((request) => {
      request.context = { ...request.context };
    });
    const paid = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'C' } });
    await expect(handler(paid, lambdaContext({ functionName: 'orders', timeoutMs: 30_000 }))).rejects.toThrow(
      /eventBridgeHandler\.inTransaction: .*a middleware between them replaced the Lambda context/,
    );
    expect({ item: await item('C'), record: await record('C') }).toEqual({ item: undefined, record: undefined });
  });
});
