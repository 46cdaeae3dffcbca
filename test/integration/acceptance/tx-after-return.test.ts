/**
 * Red-team acceptance: a write added to `tx` after the handler returned (a
 * promise the handler did not await). The idempotency record commits without
 * that write, so the write was lost silently and a redelivery acknowledged as
 * a duplicate: an effect acknowledged without being applied. The builder is
 * closed once the handler settled, so the late write throws instead.
 */
import middy from '@middy/core';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eventBridgeIdempotency, eventBridgeHandler, type TransactionBuilder, transaction } from '../../../src/index.js';
import { eventBridgeEvent, lambdaContext, sqsEvent } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { failedIds, harness, order } from '../sqs/harness.js';

/** Adds a put to `tx` 50 ms from now, not awaited; resolves to how the builder took it. */
function latePut(tx: TransactionBuilder, table: string): Promise<string> {
  return new Promise((resolve) => setTimeout(resolve, 50))
    .then(() => {
      tx.put({ TableName: table, Item: { pk: 'late' } });
    })
    .then(
      () => 'accepted',
      (error: unknown) => (error instanceof TypeError && /handler already returned/.test(error.message) ? 'refused' : 'other error'),
    );
}

async function businessSetup() {
  const { client, doc } = testDynamo();
  const business = await freshTable(client, businessTable, 'biz');
  const lateItem = async () => (await doc.send(new GetCommand({ TableName: business, Key: { pk: 'late' } }))).Item;
  return { business, lateItem };
}

describe('acceptance: tx used after the handler returned', () => {
  it('a late tx.put throws instead of being dropped silently', async () => {
    const h = await harness();
    const { business, lateItem } = await businessSetup();
    let late: Promise<string> | undefined;
    const handler = h.txHandler(
      (_record, { tx }) => {
        // Not awaited: runs after the handler returned and the commit was sent.
        late = latePut(tx, business);
      },
      { strategy: transaction() },
    );
    const response = await handler(sqsEvent([order('o-1')]), h.context());
    expect(response.batchItemFailures).toEqual([]);
    const settled = await late;
    // The write was not committed...
    expect(await lateItem()).toBeUndefined();
    // ...so adding it must not look like it worked.
    expect(settled).toBe('refused');
  });

  it('a late tx.put after the handler threw is refused too', async () => {
    const h = await harness();
    const { business, lateItem } = await businessSetup();
    let late: Promise<string> | undefined;
    const handler = h.txHandler(
      (_record, { tx }) => {
        late = latePut(tx, business);
        throw new Error('boom');
      },
      { strategy: transaction() },
    );
    const record = order('o-2');
    expect(failedIds(await handler(sqsEvent([record]), h.context()))).toEqual([record.messageId]);
    expect(await late).toBe('refused');
    expect(await lateItem()).toBeUndefined();
  });

  it('eventBridgeHandler: a late tx.put throws instead of being dropped silently', async () => {
    const h = await harness();
    const { business, lateItem } = await businessSetup();
    type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;
    let late: Promise<string> | undefined;
    const handler = middy<OrderPaid, string>()
      .use(
        eventBridgeIdempotency<OrderPaid>({
          store: h.store,
          consumer: 'late',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          logger: false,
        }),
      )
      .handler(
        eventBridgeHandler.inTransaction<OrderPaid, string>(async (_event, { tx }) => {
          late = latePut(tx, business);
          return 'done';
        }),
      );
    const event: OrderPaid = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'o-3' } });
    expect(await handler(event, lambdaContext({ functionName: 'late', timeoutMs: 30_000 }))).toBe('done');
    expect(await late).toBe('refused');
    expect(await lateItem()).toBeUndefined();
  });
});
