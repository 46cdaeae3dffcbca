/**
 * payments -> the orders table's real stream (DynamoDB Local) -> outbox-relay
 * -> points. EventBridge has no local server: its side is a recorder, whose
 * entries are handed to points the way the bus rule would.
 */
import { randomUUID } from 'node:crypto';
import type { PutEventsCommand, PutEventsCommandOutput, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOutboxRelayHandler, outboxRelayDepsFromEnv } from '../../../functions/outbox-relay.js';
import { createPaymentsHandler } from '../../../functions/payments.js';
import { balanceKey, createPointsHandler } from '../../../functions/points.js';
import { ORDER_EVENTS_SOURCE, ORDER_PAID } from '../../../functions/shared/messages.js';
import { tableDefinitions } from '../../../infra/tables.js';
import { readStream } from '../../../scripts/local/dynamodb-stream.js';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { rawItem } from '../../support/store.js';

const QUEUE = 'arn:aws:sqs:eu-west-1:123456789012:effectively-once-test-payments.fifo';
const { client, doc } = testDynamo();
let tables: { idempotency: string; orders: string; points: string };

beforeAll(async () => {
  tables = {
    idempotency: await freshTable(client, tableDefinitions.idempotency, 'idem'),
    orders: await freshTable(client, tableDefinitions.orders, 'orders'),
    points: await freshTable(client, tableDefinitions.points, 'points'),
  };
});

function recorder() {
  const published: PutEventsRequestEntry[] = [];
  return {
    published,
    eventBridge: {
      async send(command: PutEventsCommand): Promise<PutEventsCommandOutput> {
        const entries = command.input.Entries ?? [];
        published.push(...entries);
        return { $metadata: {}, FailedEntryCount: 0, Entries: entries.map(() => ({ EventId: randomUUID() })) };
      },
    },
  };
}

describe('outbox-relay (reference service)', () => {
  it('publishes the OrderPaid that payments wrote, to the bus; points awards once even when it is published twice', async () => {
    const orderNo = `o-${randomUUID()}`;
    const customerId = `c-${randomUUID()}`;
    await doc.send(new PutCommand({ TableName: tables.orders, Item: { orderNo, status: 'PENDING', customerId } }));
    const payments = createPaymentsHandler({ client: doc, tables, logger: false });
    const payment = { orderNo, amount: 120, customerId, paidAt: 1 };
    await payments(sqsEvent([sqsRecord({ body: payment, queueArn: QUEUE, groupId: orderNo })]), lambdaContext({ timeoutMs: 30_000 }));

    const bus = recorder();
    const relay = createOutboxRelayHandler({ client: doc, eventBridge: bus.eventBridge, busName: 'orders-bus' });
    const stream = await readStream(client, tables.orders);
    expect(await relay(stream)).toEqual({ batchItemFailures: [] });
    // A retried batch (e.g. a crash before the mark) publishes it again.
    expect(await relay(stream)).toEqual({ batchItemFailures: [] });
    const mine = bus.published.filter((e) => JSON.parse(e.Detail ?? '{}').orderNo === orderNo);
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({ Source: ORDER_EVENTS_SOURCE, DetailType: ORDER_PAID, EventBusName: 'orders-bus' });

    const points = createPointsHandler({ client: doc, tables, logger: false });
    for (const entry of mine) {
      const detail = JSON.parse(entry.Detail ?? '{}') as unknown;
      await points(eventBridgeEvent({ source: ORDER_EVENTS_SOURCE, detailType: ORDER_PAID, detail }), lambdaContext({ timeoutMs: 30_000 }));
    }
    expect(await rawItem(doc, tables.points, balanceKey(customerId))).toMatchObject({ points: 12 });
  });

  it('reads EVENT_BUS_NAME from the environment, and needs it unless PUBLISH_TARGET=stdout', () => {
    expect(() => outboxRelayDepsFromEnv({})).toThrow(/EVENT_BUS_NAME/);
    expect(outboxRelayDepsFromEnv({ EVENT_BUS_NAME: 'b' }).busName).toBe('b');
    expect(outboxRelayDepsFromEnv({ PUBLISH_TARGET: 'stdout' }).busName).toBe('local');
  });
});
