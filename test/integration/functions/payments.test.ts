import { createHash, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsHandler, paymentMessage, type PaymentsDeps } from '../../../functions/payments.js';
import type { OrderPaid, PaymentMessage } from '../../../functions/shared/messages.js';
import { tableDefinitions } from '../../../infra/tables.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { rawItem } from '../../support/store.js';

const QUEUE = 'arn:aws:sqs:eu-west-1:123456789012:effectively-once-test-payments.fifo';
const { client, doc } = testDynamo();
let tables: PaymentsDeps['tables'];

beforeAll(async () => {
  tables = {
    idempotency: await freshTable(client, tableDefinitions.idempotency, 'idem'),
    orders: await freshTable(client, tableDefinitions.orders, 'orders'),
  };
});

/** A handler whose publish calls are recorded; `failPublishes` makes the first n reject. */
function setup(failPublishes = 0) {
  const published: OrderPaid[] = [];
  let failures = failPublishes;
  const publish = async (detail: OrderPaid): Promise<void> => {
    if (failures > 0) {
      failures -= 1;
      throw new Error('EventBridge unavailable');
    }
    published.push(detail);
  };
  const handler = createPaymentsHandler({ client: doc, tables, publish, logger: false });
  const deliver = (...payments: Array<PaymentMessage | string>) =>
    handler(
      sqsEvent(
        payments.map((p) =>
          typeof p === 'string'
            ? sqsRecord({ body: p, queueArn: QUEUE, groupId: 'bad' })
            : sqsRecord({ body: p, queueArn: QUEUE, groupId: p.orderNo }),
        ),
      ),
      lambdaContext({ functionName: 'payments', timeoutMs: 30_000 }),
    );
  return { published, deliver };
}

async function pendingOrder(status = 'PENDING'): Promise<PaymentMessage> {
  const orderNo = `o-${randomUUID()}`;
  await doc.send(new PutCommand({ TableName: tables.orders, Item: { orderNo, status, customerId: 'c-1' } }));
  return { orderNo, amount: 125, customerId: 'c-1', paidAt: 1_700_000_000_000 };
}

const order = (orderNo: string) => rawItem(doc, tables.orders, { orderNo });

describe('payments', () => {
  it('marks the order PAID and publishes OrderPaid once', async () => {
    const { published, deliver } = setup();
    const payment = await pendingOrder();
    expect(await deliver(payment)).toEqual({ batchItemFailures: [] });
    expect(await order(payment.orderNo)).toMatchObject({ status: 'PAID', paidAt: payment.paidAt, amount: 125, version: 1 });
    expect(published).toEqual([{ orderNo: payment.orderNo, customerId: 'c-1', amount: 125 }]);
  });

  it('acknowledges a duplicate (re-sent under a new message id) without a second transition or publish', async () => {
    const { published, deliver } = setup();
    const payment = await pendingOrder();
    await deliver(payment);
    expect(await deliver(payment)).toEqual({ batchItemFailures: [] });
    expect(await order(payment.orderNo)).toMatchObject({ status: 'PAID', version: 1 });
    expect(published).toHaveLength(1);
  });

  it('publishes again when the order is already PAID but the event was never sent (crash before publish)', async () => {
    const { published, deliver } = setup(1);
    const payment = await pendingOrder();
    const first = await deliver(payment);
    expect(first.batchItemFailures).toHaveLength(1);
    expect(await order(payment.orderNo)).toMatchObject({ status: 'PAID', version: 1 });
    expect(published).toEqual([]);
    // The retry finds the order `already` PAID: no second transition, but the event goes out.
    expect(await deliver(payment)).toEqual({ batchItemFailures: [] });
    expect(await order(payment.orderNo)).toMatchObject({ status: 'PAID', version: 1 });
    expect(published).toHaveLength(1);
  });

  it('fails only the record of an order that is missing, in another state, or unreadable', async () => {
    const { published, deliver } = setup();
    const good = await pendingOrder();
    const cancelled = await pendingOrder('CANCELLED');
    const missing: PaymentMessage = { ...good, orderNo: `o-${randomUUID()}` };
    const result = await deliver(good, cancelled, missing, '{not json');
    expect(result.batchItemFailures).toHaveLength(3);
    expect(await order(cancelled.orderNo)).toMatchObject({ status: 'CANCELLED' });
    expect(await order(missing.orderNo)).toBeUndefined();
    expect(published.map((p) => p.orderNo)).toEqual([good.orderNo]);
  });
});

describe('paymentMessage', () => {
  it('groups by order and derives the deduplication id from the business key only', () => {
    const payment: PaymentMessage = { orderNo: 'o-42', amount: 10, customerId: 'c-1', paidAt: 1 };
    const message = paymentMessage(payment);
    expect(JSON.parse(message.MessageBody)).toEqual(payment);
    expect(message.MessageGroupId).toBe('o-42');
    expect(message.MessageDeduplicationId).toBe(createHash('sha256').update('payment#o-42').digest('hex'));
    expect(paymentMessage({ ...payment, paidAt: 2 }).MessageDeduplicationId).toBe(message.MessageDeduplicationId);
    expect(message.MessageDeduplicationId.length).toBeLessThanOrEqual(128);
  });
});
