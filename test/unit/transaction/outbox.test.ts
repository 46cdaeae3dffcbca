import { describe, expect, it } from 'vitest';
import { ItemTooLargeError } from '../../../src/engine/errors.js';
import { TransactionBuilder } from '../../../src/strategies/transaction/builder.js';
import { outboxId, outboxItem, readOutboxImage } from '../../../src/strategies/transaction/outbox/item.js';
import { chunkEntries } from '../../../src/strategies/transaction/outbox/publish.js';

const event = { source: 'shop', detailType: 'OrderPaid', detail: { orderNo: 'o-1' } };
const origin = { consumer: 'payments', businessKey: 'o-1', now: 5 };

describe('outbox ids', () => {
  it('are stable for one consumer, key and name, and differ when any of them does', () => {
    expect(outboxId('payments', 'o-1', 'OrderPaid')).toBe(outboxId('payments', 'o-1', 'OrderPaid'));
    const ids = new Set([
      outboxId('payments', 'o-1', 'OrderPaid'),
      outboxId('payments', 'o-2', 'OrderPaid'),
      outboxId('points', 'o-1', 'OrderPaid'),
      outboxId('payments', 'o-1', 'OrderShipped'),
      // A separator inside a part cannot make two records share an id.
      outboxId('payments#o', '1', 'OrderPaid'),
      outboxId('payments', 'o#1', 'OrderPaid'),
    ]);
    expect(ids.size).toBe(6);
  });

  it('default to the detail type as the name; a name tells two events of one detail type apart', () => {
    const a = outboxItem(event, { tableName: 't' }, origin);
    const b = outboxItem(event, { tableName: 't', name: 'second' }, origin);
    expect(a['pk']).toBe(outboxId('payments', 'o-1', 'OrderPaid'));
    expect(b['pk']).toBe(outboxId('payments', 'o-1', 'second'));
  });
});

describe('outbox items', () => {
  it('put the id under the key attribute and carry it in the detail', () => {
    const item = outboxItem({ ...event, eventBusName: 'bus' }, { tableName: 't', keyAttribute: 'orderNo' }, origin);
    const id = outboxId('payments', 'o-1', 'OrderPaid');
    expect(item).toEqual({
      orderNo: id,
      outboxId: id,
      outboxStatus: 'PENDING',
      createdAt: 5,
      source: 'shop',
      detailType: 'OrderPaid',
      detail: JSON.stringify({ orderNo: 'o-1', outboxId: id }),
      eventBusName: 'bus',
    });
    expect(readOutboxImage(item)).toEqual({
      id,
      createdAt: 5,
      source: 'shop',
      detailType: 'OrderPaid',
      detail: item['detail'],
      eventBusName: 'bus',
    });
  });

  it('put the id under the sort key attribute too, when given one; the same attribute twice is a TypeError', () => {
    const item = outboxItem(event, { tableName: 't', sortKeyAttribute: 'sk' }, origin);
    const id = outboxId('payments', 'o-1', 'OrderPaid');
    expect({ pk: item['pk'], sk: item['sk'] }).toEqual({ pk: id, sk: id });
    expect(() => outboxItem(event, { tableName: 't', keyAttribute: 'id', sortKeyAttribute: 'id' }, origin)).toThrow(/"sortKeyAttribute"/);
    expect(() => outboxItem(event, { tableName: 't', sortKeyAttribute: '' }, origin)).toThrow(/sortKeyAttribute/);
  });

  it('name a bad event field or option in a TypeError', () => {
    expect(() => outboxItem({ ...event, detail: [] as unknown as Record<string, unknown> }, { tableName: 't' }, origin)).toThrow(/detail/);
    expect(() => outboxItem({ ...event, source: '' }, { tableName: 't' }, origin)).toThrow(/source/);
    expect(() => outboxItem(event, { tableName: 't', keyAtribute: 'x' } as unknown as { tableName: string }, origin)).toThrow(
      /keyAtribute/,
    );
  });

  it('refuse an event over 256 KB when it is added, not when it is relayed', () => {
    expect(() => outboxItem({ ...event, detail: { blob: 'x'.repeat(262_144) } }, { tableName: 't' }, origin)).toThrow(ItemTooLargeError);
  });

  it('are not read from an image without outboxId; a malformed one is a TypeError', () => {
    expect(readOutboxImage({ pk: 'order#1', status: 'PAID' })).toBeUndefined();
    expect(() => readOutboxImage({ outboxId: 'x', source: 'shop' })).toThrow(TypeError);
  });
});

describe('tx.outbox()', () => {
  it('needs the consumer and business key the middleware gives its builder', () => {
    expect(() => new TransactionBuilder().outbox(event, { tableName: 't' })).toThrow(/consumer and business key/);
    const tx = new TransactionBuilder({ consumer: 'payments', businessKey: 'o-1', clock: { now: () => 7 } }).outbox(event, {
      tableName: 't',
    });
    expect(tx.items()[0]?.Put).toMatchObject({
      TableName: 't',
      Item: { createdAt: 7 },
      ConditionExpression: 'attribute_not_exists(#k)',
      ExpressionAttributeNames: { '#k': 'pk' },
    });
  });
});

describe('PutEvents chunks', () => {
  const entry = (bytes: number) => ({ Source: 's', DetailType: 'd', Detail: 'x'.repeat(bytes) });
  it('hold at most 10 entries and 256 KB', () => {
    expect(chunkEntries(Array.from({ length: 23 }, () => entry(10))).map((c) => c.length)).toEqual([10, 10, 3]);
    expect(chunkEntries(Array.from({ length: 3 }, () => entry(100_000))).map((c) => c.length)).toEqual([2, 1]);
  });
});
