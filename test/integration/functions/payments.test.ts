import { createHash, randomUUID } from 'node:crypto';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsHandler, PAYMENTS_CONSUMER, paymentMessage, type PaymentsDeps } from '../../../functions/payments.js';
import { ORDER_EVENTS_SOURCE, ORDER_PAID, type PaymentMessage } from '../../../functions/shared/messages.js';
import { storeFrom } from '../../../functions/shared/store.js';
import { outboxId } from '../../../src/strategies/transaction/outbox/item.js';
import type { TransactionalIdempotencyStore } from '../../../src/index.js';
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

/** The payments handler on the test tables. */
function setup() {
  const handler = createPaymentsHandler({ client: doc, tables, logger: false });
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
  return { deliver };
}

/** The OrderPaid events in the outbox (the orders table), by order number. */
async function outboxEvents(orderNo: string): Promise<Array<Record<string, unknown>>> {
  const items = (await doc.send(new ScanCommand({ TableName: tables.orders }))).Items ?? [];
  return items.filter((i) => i['outboxId'] !== undefined && JSON.parse(String(i['detail'])).orderNo === orderNo);
}

async function pendingOrder(status = 'PENDING'): Promise<PaymentMessage> {
  const orderNo = `o-${randomUUID()}`;
  await doc.send(new PutCommand({ TableName: tables.orders, Item: { orderNo, status, customerId: 'c-1' } }));
  return { orderNo, amount: 125, customerId: 'c-1', paidAt: 1_700_000_000_000 };
}

const order = (orderNo: string) => rawItem(doc, tables.orders, { orderNo });

/** The service's store, whose commit dies before it is sent (the process was killed). */
function crashBeforeCommit(): TransactionalIdempotencyStore {
  const store = storeFrom({ client: doc, tables });
  const crash = async (): Promise<never> => {
    throw new Error('killed before the commit');
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'commit' || property === 'commitGroup') return crash; // both commit paths (per record, group)
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('payments', () => {
  it('marks the order PAID and writes OrderPaid to the outbox in the same transaction', async () => {
    const { deliver } = setup();
    const payment = await pendingOrder();
    expect(await deliver(payment)).toEqual({ batchItemFailures: [] });
    expect(await order(payment.orderNo)).toMatchObject({ status: 'PAID', paidAt: payment.paidAt, amount: 125, version: 1 });
    const id = outboxId(PAYMENTS_CONSUMER, payment.orderNo, ORDER_PAID);
    const [event, ...more] = await outboxEvents(payment.orderNo);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      orderNo: id,
      outboxId: id,
      outboxStatus: 'PENDING',
      source: ORDER_EVENTS_SOURCE,
      detailType: ORDER_PAID,
    });
    expect(JSON.parse(String(event?.['detail']))).toEqual({ orderNo: payment.orderNo, customerId: 'c-1', amount: 125, outboxId: id });
  });

  it('acknowledges a duplicate (re-sent under a new message id) without a second transition or outbox item', async () => {
    const { deliver } = setup();
    const payment = await pendingOrder();
    await deliver(payment);
    expect(await deliver(payment)).toEqual({ batchItemFailures: [] });
    expect(await order(payment.orderNo)).toMatchObject({ status: 'PAID', version: 1 });
    expect(await outboxEvents(payment.orderNo)).toHaveLength(1);
  });

  it('a crash before the commit leaves neither PAID nor an event; the retry writes both, once', async () => {
    const payment = await pendingOrder();
    const crashing = createPaymentsHandler({ client: doc, tables, logger: false, store: crashBeforeCommit() });
    const event = sqsEvent([sqsRecord({ body: payment, queueArn: QUEUE, groupId: payment.orderNo })]);
    expect((await crashing(event, lambdaContext({ timeoutMs: 30_000 }))).batchItemFailures).toHaveLength(1);
    expect(await order(payment.orderNo)).toMatchObject({ status: 'PENDING' });
    expect(await outboxEvents(payment.orderNo)).toEqual([]);
    expect(await setup().deliver(payment)).toEqual({ batchItemFailures: [] });
    expect(await order(payment.orderNo)).toMatchObject({ status: 'PAID', version: 1 });
    expect(await outboxEvents(payment.orderNo)).toHaveLength(1);
  });

  it('fails only the record of an order that is missing, in another state, or unreadable, writing no event for it', async () => {
    const { deliver } = setup();
    const good = await pendingOrder();
    const cancelled = await pendingOrder('CANCELLED');
    const missing: PaymentMessage = { ...good, orderNo: `o-${randomUUID()}` };
    const result = await deliver(good, cancelled, missing, '{not json');
    expect(result.batchItemFailures).toHaveLength(3);
    expect(await order(cancelled.orderNo)).toMatchObject({ status: 'CANCELLED' });
    expect(await order(missing.orderNo)).toBeUndefined();
    expect(await outboxEvents(good.orderNo)).toHaveLength(1);
    expect(await outboxEvents(cancelled.orderNo)).toEqual([]);
    expect(await outboxEvents(missing.orderNo)).toEqual([]);
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
