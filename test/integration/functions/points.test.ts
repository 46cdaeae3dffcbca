import { randomUUID } from 'node:crypto';
import type { EventBridgeEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { balanceKey, createPointsHandler, ledgerKey, type PointsDeps } from '../../../functions/points.js';
import { ORDER_EVENTS_SOURCE, ORDER_PAID, type OrderPaid } from '../../../functions/shared/messages.js';
import { tableDefinitions } from '../../../infra/tables.js';
import { eventBridgeEvent, lambdaContext } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { rawItem } from '../../support/store.js';

const { client, doc } = testDynamo();
let tables: PointsDeps['tables'];

beforeAll(async () => {
  tables = {
    idempotency: await freshTable(client, tableDefinitions.idempotency, 'idem'),
    points: await freshTable(client, tableDefinitions.points, 'points'),
  };
});

const handler = () => createPointsHandler({ client: doc, tables, logger: false });
const context = () => lambdaContext({ functionName: 'points', timeoutMs: 30_000 });
// Each publish gets a new event id, as EventBridge assigns one per PutEvents entry.
const orderPaid = (detail: unknown): EventBridgeEvent<string, unknown> =>
  eventBridgeEvent({ detailType: ORDER_PAID, source: ORDER_EVENTS_SOURCE, detail });

describe('points', () => {
  it('awards points once per order, however often OrderPaid arrives', async () => {
    const points = handler();
    const customerId = `c-${randomUUID()}`;
    const detail: OrderPaid = { orderNo: `o-${randomUUID()}`, customerId, amount: 129 };
    expect(await points(orderPaid(detail), context())).toEqual({ orderNo: detail.orderNo, customerId, points: 12 });
    await points(orderPaid(detail), context());
    await points(orderPaid(detail), context());
    expect(await rawItem(doc, tables.points, ledgerKey(detail.orderNo))).toMatchObject({ points: 12, customerId });
    expect(await rawItem(doc, tables.points, balanceKey(customerId))).toMatchObject({ points: 12 });
  });

  it('adds the points of different orders to one balance', async () => {
    const points = handler();
    const customerId = `c-${randomUUID()}`;
    await points(orderPaid({ orderNo: `o-${randomUUID()}`, customerId, amount: 50 }), context());
    await points(orderPaid({ orderNo: `o-${randomUUID()}`, customerId, amount: 31 }), context());
    expect(await rawItem(doc, tables.points, balanceKey(customerId))).toMatchObject({ points: 8 });
  });

  it('acknowledges an order whose ledger item exists after its idempotency record is gone (expired)', async () => {
    const customerId = `c-${randomUUID()}`;
    const detail: OrderPaid = { orderNo: `o-${randomUUID()}`, customerId, amount: 100 };
    await handler()(orderPaid(detail), context());
    // A fresh idempotency table stands for one whose record has expired.
    const forgetful = createPointsHandler({
      client: doc,
      tables: { ...tables, idempotency: await freshTable(client, tableDefinitions.idempotency, 'idem') },
      logger: false,
    });
    await expect(forgetful(orderPaid(detail), context())).resolves.toBeUndefined();
    expect(await rawItem(doc, tables.points, balanceKey(customerId))).toMatchObject({ points: 10 });
  });

  it('rejects an event without a usable detail and writes nothing', async () => {
    const points = handler();
    const orderNo = `o-${randomUUID()}`;
    await expect(points(orderPaid({ orderNo, amount: 'lots' }), context())).rejects.toThrow(/customerId/);
    expect(await rawItem(doc, tables.points, ledgerKey(orderNo))).toBeUndefined();
  });
});
