import { describe, expect, it } from 'vitest';
import { TransactionLimitError } from '../../../src/engine/errors.js';
import { checkTransactionLimits, type OwnAction } from '../../../src/stores/dynamodb/commit-limits.js';
import { estimateActionSize, itemIdentity } from '../../../src/engine/transaction-limits.js';
import type { TransactItem } from '../../../src/engine/store.js';

const own: OwnAction = { tableName: 'idem', id: 'c#k', item: { id: 'c#k', status: 'COMPLETED' } };
const put = (pk: unknown, extra: Record<string, unknown> = {}): TransactItem => ({ Put: { TableName: 'orders', Item: { pk, ...extra } } });
const update = (key: Record<string, unknown>): TransactItem => ({
  Update: { TableName: 'orders', Key: key, UpdateExpression: 'SET a = :a', ExpressionAttributeValues: { ':a': 1 } },
});

describe('checkTransactionLimits', () => {
  it('accepts 99 handler actions (100 with the idempotency record)', () => {
    expect(() =>
      checkTransactionLimits(
        own,
        Array.from({ length: 99 }, (_, i) => put(`p${i}`)),
      ),
    ).not.toThrow();
  });

  it('rejects 100 handler actions', () => {
    expect(() =>
      checkTransactionLimits(
        own,
        Array.from({ length: 100 }, (_, i) => put(`p${i}`)),
      ),
    ).toThrow(TransactionLimitError);
  });

  it('compares keys canonically (attribute order does not matter)', () => {
    const a = update({ pk: 'x', sk: 'y' });
    const b: TransactItem = { Delete: { TableName: 'orders', Key: { sk: 'y', pk: 'x' } } };
    expect(() => checkTransactionLimits(own, [a, b])).toThrow(/same item/);
  });

  it('tells items apart by table and by key type', () => {
    const other: TransactItem = { Delete: { TableName: 'other', Key: { pk: 'x' } } };
    expect(() => checkTransactionLimits(own, [update({ pk: 'x' }), other, update({ pk: 1 }), update({ pk: '1' })])).not.toThrow();
  });

  it("infers a Put's key from the key names other actions use on the same table", () => {
    expect(() => checkTransactionLimits(own, [put('x', { total: 1 }), update({ pk: 'x' })])).toThrow(/same item/);
    expect(() => checkTransactionLimits(own, [put('x', { total: 1 }), update({ pk: 'y' })])).not.toThrow();
  });

  it('catches two identical Puts even when the key cannot be inferred', () => {
    expect(() => checkTransactionLimits(own, [put('x'), put('x')])).toThrow(/same item/);
  });

  it('refuses a handler action on the idempotency record, by Key or by Put item', () => {
    const del: TransactItem = { Delete: { TableName: 'idem', Key: { id: 'c#k' } } };
    const overwrite: TransactItem = { Put: { TableName: 'idem', Item: { id: 'c#k', status: 'COMPLETED' } } };
    expect(() => checkTransactionLimits(own, [del])).toThrow(/idempotency record/);
    expect(() => checkTransactionLimits(own, [overwrite])).toThrow(/idempotency record/);
    expect(() => checkTransactionLimits(own, [{ Delete: { TableName: 'idem', Key: { id: 'c#other' } } }])).not.toThrow();
  });

  it('rejects an aggregate size over 4 MB and accepts one under it', () => {
    const blob = 'z'.repeat(390 * 1024);
    expect(() =>
      checkTransactionLimits(
        own,
        Array.from({ length: 10 }, (_, i) => put(`b${i}`, { blob })),
      ),
    ).not.toThrow();
    expect(() =>
      checkTransactionLimits(
        own,
        Array.from({ length: 11 }, (_, i) => put(`b${i}`, { blob })),
      ),
    ).toThrow(/4194304/);
  });

  it('counts update values towards the size', () => {
    const blob = 'z'.repeat(400 * 1024);
    const big = (pk: string): TransactItem => ({
      Update: { TableName: 'orders', Key: { pk }, UpdateExpression: 'SET b = :b', ExpressionAttributeValues: { ':b': blob } },
    });
    expect(() =>
      checkTransactionLimits(
        own,
        Array.from({ length: 11 }, (_, i) => big(`u${i}`)),
      ),
    ).toThrow(TransactionLimitError);
  });

  it('carries the business key on the error', () => {
    try {
      checkTransactionLimits(own, [put('x'), put('x')], 'order-1');
      expect.unreachable();
    } catch (err) {
      expect((err as TransactionLimitError).key).toBe('order-1');
    }
  });
});

describe('checkTransactionLimits returns the commit footprint', () => {
  it('the items it touches, its action count and its estimated bytes, idempotency action included', () => {
    const own = { tableName: 'idem', id: 'c#k', item: { id: 'c#k', status: 'COMPLETED' } };
    const actions = [
      { Put: { TableName: 'orders', Item: { pk: 'o1', total: 3 } } },
      { Update: { TableName: 'orders', Key: { pk: 'o2' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 1 } } },
    ];
    expect(checkTransactionLimits(own, actions)).toEqual({
      items: [itemIdentity('idem', { id: 'c#k' }), itemIdentity('orders', { pk: 'o1' }), itemIdentity('orders', { pk: 'o2' })],
      actions: 3,
      bytes:
        estimateActionSize({ TableName: 'idem', Item: own.item }) +
        actions.reduce((n, a) => n + estimateActionSize(Object.values(a)[0] as Parameters<typeof estimateActionSize>[0]), 0),
    });
  });
});
