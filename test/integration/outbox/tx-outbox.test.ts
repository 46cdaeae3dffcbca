/**
 * `tx.outbox()` against DynamoDB Local: the outbox item commits in the same
 * `TransactWriteItems` as the business writes and the idempotency record,
 * or not at all, and a re-run cannot add a second one.
 */
import { DeleteCommand, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { claim, transaction } from '../../../src/index.js';
import type { TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { outboxId } from '../../../src/strategies/transaction/outbox/item.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { failedIds, harness, order } from '../sqs/harness.js';

const streamTable = { ...businessTable, StreamSpecification: { StreamViewType: 'NEW_IMAGE' } };

async function setup() {
  const h = await harness();
  const { client, doc } = testDynamo();
  const orders = await freshTable(client, streamTable, 'orders');
  const pay: TransactionRecordHandler = (_record, { key, tx }) => {
    tx.update({
      TableName: orders,
      Key: { pk: `order#${key}` },
      UpdateExpression: 'SET #s = :paid',
      ConditionExpression: '#s = :pending',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':paid': 'PAID', ':pending': 'PENDING' },
    });
    tx.outbox({ source: 'shop', detailType: 'OrderPaid', detail: { orderNo: key } }, { tableName: orders });
  };
  const pending = (orderNo: string) => doc.send(new PutCommand({ TableName: orders, Item: { pk: `order#${orderNo}`, status: 'PENDING' } }));
  const outboxItems = async () =>
    ((await doc.send(new ScanCommand({ TableName: orders }))).Items ?? []).filter((i) => i['outboxId'] !== undefined);
  return { h, doc, orders, pay, pending, outboxItems };
}

describe('tx.outbox() (transaction strategy, DynamoDB Local)', () => {
  it('commits the outbox item with the business write and the idempotency record, keyed by a derived id', async () => {
    const { h, doc, orders, pay, pending, outboxItems } = await setup();
    await pending('o1');
    const handler = h.txHandler(pay, { strategy: transaction() });
    expect(failedIds(await handler(sqsEvent([order('o1')]), h.context()))).toEqual([]);
    const id = outboxId('test', 'o1', 'OrderPaid');
    const items = await outboxItems();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ pk: id, outboxId: id, outboxStatus: 'PENDING', source: 'shop', detailType: 'OrderPaid' });
    expect(JSON.parse(String(items[0]?.['detail']))).toEqual({ orderNo: 'o1', outboxId: id });
    expect(items[0]?.['expiresAt']).toBeUndefined(); // TTL only once published
    const order1 = await doc.send(new GetCommand({ TableName: orders, Key: { pk: 'order#o1' } }));
    expect(order1.Item?.['status']).toBe('PAID');
    const record = await h.store.get('test#o1');
    expect(record?.status).toBe('COMPLETED');
  });

  it('writes no outbox item when a business condition fails', async () => {
    const { h, pay, outboxItems } = await setup();
    const handler = h.txHandler(pay, { strategy: transaction() });
    // No PENDING order: the update's condition fails, so the whole transaction does.
    expect(failedIds(await handler(sqsEvent([order('o2')]), h.context()))).toHaveLength(1);
    expect(await outboxItems()).toEqual([]);
    expect(await h.store.get('test#o2')).toBeUndefined();
  });

  it('a redelivery (crash after commit, before the ACK) adds no second item', async () => {
    const { h, pay, pending, outboxItems } = await setup();
    await pending('o3');
    const handler = h.txHandler(pay, { strategy: transaction() });
    const record = order('o3');
    await handler(sqsEvent([record]), h.context());
    expect(failedIds(await handler(sqsEvent([{ ...record, messageId: 'again' }]), h.context()))).toEqual([]);
    expect(await outboxItems()).toHaveLength(1);
  });

  it('a re-run after the idempotency record is gone still cannot add a second item (attribute_not_exists)', async () => {
    const { h, doc, orders, pending, outboxItems } = await setup();
    await pending('o4');
    // Only the outbox: the re-run's transaction fails on the outbox item's own condition.
    const emit: TransactionRecordHandler = (_r, { key, tx }) => {
      tx.outbox({ source: 'shop', detailType: 'OrderPaid', detail: { orderNo: key } }, { tableName: orders });
    };
    const handler = h.txHandler(emit, { strategy: transaction({ onConflict: 'acknowledge' }) });
    await handler(sqsEvent([order('o4')]), h.context());
    await doc.send(new DeleteCommand({ TableName: h.table, Key: { id: 'test#o4' } }));
    expect(failedIds(await handler(sqsEvent([order('o4')]), h.context()))).toEqual([]);
    expect(h.lines.at(-1)?.records.map((r) => r.outcome)).toEqual(['conflict']);
    expect(await outboxItems()).toHaveLength(1);
  });

  it('under the claim strategy eachRecord.inTransaction runs no handler: the record comes back, nothing is written', async () => {
    const { h, orders, outboxItems } = await setup();
    let runs = 0;
    const handler = h.txHandler(
      (_r, { tx }) => {
        runs += 1;
        tx.outbox({ source: 'shop', detailType: 'OrderPaid', detail: {} }, { tableName: orders });
      },
      { strategy: claim() },
    );
    const record = order('o5');
    expect(failedIds(await handler(sqsEvent([record]), h.context()))).toEqual([record.messageId]);
    expect(runs).toBe(0);
    expect(h.lines.at(-1)?.records[0]?.error?.message).toMatch(/sqsIdempotency\(\{ strategy: transaction\(\) \}\), or eachRecord\(fn\)/);
    expect(await outboxItems()).toEqual([]);
    // The claim was released, not left IN_PROGRESS: the retry runs.
    expect(await h.store.get(h.store.recordId('test', 'o5'))).toBeUndefined();
  });

  describe('a table with a sort key', () => {
    const sortedTable = {
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
    } as const;

    async function sortedSetup() {
      const h = await harness();
      const { client, doc } = testDynamo();
      const table = await freshTable(client, sortedTable, 'sorted');
      const items = async () => (await doc.send(new ScanCommand({ TableName: table }))).Items ?? [];
      return { h, table, items };
    }

    it('an outbox item without the sort key is a TypeError naming the table and the attribute; nothing is written', async () => {
      const { h, table, items } = await sortedSetup();
      const emit: TransactionRecordHandler = (_r, { key, tx }) => {
        tx.outbox({ source: 'shop', detailType: 'OrderPaid', detail: { orderNo: key } }, { tableName: table });
      };
      // Two records: a group commit refused as a whole is read record by record.
      const response = await h.txHandler(emit, { strategy: transaction() })(sqsEvent([order('s1'), order('s2')]), h.context());
      expect(failedIds(response)).toHaveLength(2);
      const errors = h.lines.flatMap((l) => l.records.map((r) => r.error));
      expect(errors).toHaveLength(2);
      for (const error of errors) {
        expect(error?.name).toBe('TypeError');
        expect(error?.message).toContain(`table "${table}"`);
        expect(error?.message).toContain('"sk"');
        expect(error?.message).toContain('sortKeyAttribute');
      }
      expect(await items()).toEqual([]);
      expect(await h.store.get('test#s1')).toBeUndefined();
    });

    it('with sortKeyAttribute the item carries its id in the sort key too', async () => {
      const { h, table, items } = await sortedSetup();
      const emit: TransactionRecordHandler = (_r, { key, tx }) => {
        tx.outbox({ source: 'shop', detailType: 'OrderPaid', detail: { orderNo: key } }, { tableName: table, sortKeyAttribute: 'sk' });
      };
      expect(failedIds(await h.txHandler(emit, { strategy: transaction() })(sqsEvent([order('s3')]), h.context()))).toEqual([]);
      const id = outboxId('test', 's3', 'OrderPaid');
      expect(await items()).toEqual([expect.objectContaining({ pk: id, sk: id, outboxId: id, outboxStatus: 'PENDING' })]);
    });
  });
});
