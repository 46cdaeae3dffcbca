import { describe, expect, it } from 'vitest';
import { ItemTooLargeError, TransactionLimitError } from '../../../src/engine/errors.js';
import { MAX_TRANSACTION_BYTES } from '../../../src/engine/size.js';
import {
  checkActionCount,
  checkDistinctItem,
  checkTransactionSize,
  estimateActionSize,
  itemIdentity,
  projectKey,
} from '../../../src/engine/transaction-limits.js';
import { TransactionBuilder, closeTransactionBuilder } from '../../../src/strategies/transaction/builder.js';

const put = (pk: string, extra: Record<string, unknown> = {}) => ({ TableName: 'orders', Item: { pk, ...extra } });
const update = (key: Record<string, unknown>, table = 'orders') => ({
  TableName: table,
  Key: key,
  UpdateExpression: 'SET #n = :n',
  ExpressionAttributeNames: { '#n': 'n' },
  ExpressionAttributeValues: { ':n': 1 },
});

describe('TransactionBuilder: action count', () => {
  it('accepts 99 actions and refuses the 100th (one is reserved for the idempotency item)', () => {
    const tx = new TransactionBuilder();
    for (let i = 0; i < 99; i++) tx.update(update({ pk: `o${i}` }));
    expect(tx.size).toBe(99);
    expect(() => tx.update(update({ pk: 'o99' }))).toThrow(TransactionLimitError);
    expect(tx.size).toBe(99);
  });

  it('honours reservedActions', () => {
    const tx = new TransactionBuilder({ reservedActions: 3 });
    for (let i = 0; i < 97; i++) tx.delete({ TableName: 'orders', Key: { pk: `o${i}` } });
    expect(() => tx.delete({ TableName: 'orders', Key: { pk: 'x' } })).toThrow(/at most 97 actions/);
  });

  it('carries the business key on its errors', () => {
    const tx = new TransactionBuilder({ reservedActions: 99, businessKey: 'order-7' }).put(put('a'));
    const err = (() => {
      try {
        tx.put(put('b'));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(TransactionLimitError);
    expect((err as TransactionLimitError).key).toBe('order-7');
  });
});

describe('TransactionBuilder: one action per item', () => {
  it('refuses a second action on the same table and key, whatever the key order', () => {
    const tx = new TransactionBuilder().update(update({ pk: 'a', sk: 1 }, 'lines'));
    expect(() => tx.delete({ TableName: 'lines', Key: { sk: 1, pk: 'a' } })).toThrow(/same item/);
    expect(tx.size).toBe(1);
  });

  it('allows the same key on another table and another key on the same table', () => {
    const tx = new TransactionBuilder()
      .update(update({ pk: 'a' }))
      .update(update({ pk: 'a' }, 'other'))
      .update(update({ pk: 'b' }));
    expect(tx.size).toBe(3);
  });

  it('treats a string and a number key value as different items', () => {
    const tx = new TransactionBuilder().update(update({ pk: 1 }));
    expect(() => tx.update(update({ pk: '1' }))).not.toThrow();
  });

  it('catches a Put after an action with a Key on the same item', () => {
    const tx = new TransactionBuilder().conditionCheck({
      TableName: 'orders',
      Key: { pk: 'a' },
      ConditionExpression: 'attribute_exists(pk)',
    });
    expect(() => tx.put(put('a', { total: 1 }))).toThrow(TransactionLimitError);
  });

  it('catches a Put before an action with a Key once the key names are learned', () => {
    const tx = new TransactionBuilder().put(put('a', { total: 1 })).put(put('b'));
    expect(() => tx.update(update({ pk: 'a' }))).toThrow(/same item/);
    expect(tx.size).toBe(2);
    expect(() => tx.update(update({ pk: 'c' }))).not.toThrow();
  });

  it('catches two Puts on one item when the keySchema is given', () => {
    const tx = new TransactionBuilder({ keySchema: { orders: ['pk'] } }).put(put('a', { v: 1 }));
    expect(() => tx.put(put('a', { v: 2 }))).toThrow(/same item/);
  });

  it('refuses any action on the reserved idempotency item', () => {
    const reservedItem = { tableName: 'idem', key: { id: 'payments#order-1' } };
    const tx = new TransactionBuilder({ reservedItem });
    expect(() => tx.delete({ TableName: 'idem', Key: { id: 'payments#order-1' } })).toThrow(/idempotency record/);
    expect(() => tx.put({ TableName: 'idem', Item: { id: 'payments#order-1', status: 'x' } })).toThrow(/idempotency record/);
    expect(() => tx.put({ TableName: 'idem', Item: { id: 'payments#order-2' } })).not.toThrow();
  });

  it('checks transition and versionedUpdate actions like the others', () => {
    const tx = new TransactionBuilder().transition({ tableName: 'orders', key: { pk: 'a' }, from: 'PENDING', to: 'PAID' });
    expect(() => tx.versionedUpdate({ tableName: 'orders', key: { pk: 'a' }, expectVersion: 1, set: { x: 1 } })).toThrow(
      TransactionLimitError,
    );
    expect(tx.items()[0]?.Update?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });
});

describe('TransactionBuilder: size', () => {
  it('refuses what would take the transaction over 4 MB', () => {
    const tx = new TransactionBuilder();
    const big = 'x'.repeat(390 * 1024);
    for (let i = 0; i < 10; i++) tx.put(put(`o${i}`, { big }));
    expect(tx.estimatedBytes).toBeLessThan(MAX_TRANSACTION_BYTES);
    expect(() => tx.put(put('o10', { big }))).toThrow(/4194304-byte/);
    expect(tx.size).toBe(10);
  });

  it('counts reservedBytes against the limit', () => {
    const tx = new TransactionBuilder({ reservedBytes: MAX_TRANSACTION_BYTES - 10 });
    expect(() => tx.put(put('a', { text: 'more than ten bytes' }))).toThrow(TransactionLimitError);
  });

  it('refuses a single Put item over 400 KB', () => {
    expect(() => new TransactionBuilder().put(put('a', { big: 'x'.repeat(401 * 1024) }))).toThrow(ItemTooLargeError);
  });
});

describe('TransactionBuilder: actions and options', () => {
  it('keeps the actions in order, copied, with the user ReturnValuesOnConditionCheckFailure', () => {
    const input = { ...put('a'), ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
    const tx = new TransactionBuilder().put(input).delete({ TableName: 'orders', Key: { pk: 'b' } });
    const items = tx.items();
    expect(items.map((i) => Object.keys(i)[0])).toEqual(['Put', 'Delete']);
    expect(items[0]?.Put).toEqual(input);
    expect(items[0]?.Put).not.toBe(input);
  });

  it('adds ReturnValuesOnConditionCheckFailure to conditional actions when asked', () => {
    const tx = new TransactionBuilder({ returnValuesOnConditionCheckFailure: 'ALL_OLD' })
      .put({ ...put('a'), ConditionExpression: 'attribute_not_exists(pk)' })
      .put(put('b'))
      .update({ ...update({ pk: 'c' }), ConditionExpression: 'attribute_exists(pk)', ReturnValuesOnConditionCheckFailure: 'NONE' });
    const [a, b, c] = tx.items();
    expect(a?.Put?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(b?.Put?.ReturnValuesOnConditionCheckFailure).toBeUndefined();
    expect(c?.Update?.ReturnValuesOnConditionCheckFailure).toBe('NONE');
  });

  it('refuses malformed actions and options with a TypeError naming them', () => {
    const tx = new TransactionBuilder();
    expect(() => tx.update({ TableName: 'orders', Key: { pk: 'a' } } as never)).toThrow(/UpdateExpression/);
    expect(() => tx.delete({ TableName: '', Key: { pk: 'a' } })).toThrow(/TableName/);
    expect(() => tx.conditionCheck({ TableName: 'o', Key: {} } as never)).toThrow(/ConditionExpression/);
    expect(() => tx.transition({ tableName: 'o', key: { pk: 'a' }, from: [], to: 'X' })).toThrow(/from/);
    expect(() => new TransactionBuilder({ reservedAction: 1 } as never)).toThrow(/reservedAction/);
    expect(() => new TransactionBuilder({ reservedActions: 100 })).toThrow(/reservedActions/);
    expect(tx.size).toBe(0);
  });
});

describe('TransactionBuilder: closed once the handler settled', () => {
  it('refuses every method after close, naming it, and keeps the actions added before', () => {
    const tx = new TransactionBuilder();
    tx.put({ TableName: 't', Item: { pk: 'a' } });
    closeTransactionBuilder(tx);
    const key = { pk: 'b' };
    const calls: [string, () => unknown][] = [
      ['put', () => tx.put({ TableName: 't', Item: key })],
      ['update', () => tx.update({ TableName: 't', Key: key, UpdateExpression: 'SET x = :x', ExpressionAttributeValues: { ':x': 1 } })],
      ['delete', () => tx.delete({ TableName: 't', Key: key })],
      ['conditionCheck', () => tx.conditionCheck({ TableName: 't', Key: key, ConditionExpression: 'attribute_exists(pk)' })],
      ['transition', () => tx.transition({ tableName: 't', key, from: 'A', to: 'B' })],
      ['versionedUpdate', () => tx.versionedUpdate({ tableName: 't', key, expectVersion: 1, set: { x: 1 } })],
    ];
    for (const [method, call] of calls) {
      expect(call).toThrow(TypeError);
      expect(call).toThrow(`tx.${method}(): the handler already returned`);
    }
    expect(tx.size).toBe(1);
  });
});

describe('transaction limit checks (pure)', () => {
  it('itemIdentity ignores key order and unifies binary representations', () => {
    expect(itemIdentity('t', { a: 1, b: 'x' })).toBe(itemIdentity('t', { b: 'x', a: 1 }));
    expect(itemIdentity('t', { a: Buffer.from('hi') })).toBe(itemIdentity('t', { a: new Uint8Array([104, 105]) }));
    expect(itemIdentity('t', { a: 1 })).not.toBe(itemIdentity('u', { a: 1 }));
  });

  it('projectKey picks key attributes, or undefined when one is missing', () => {
    expect(projectKey({ pk: 'a', sk: 2, x: 1 }, ['pk', 'sk'])).toEqual({ pk: 'a', sk: 2 });
    expect(projectKey({ pk: 'a' }, ['pk', 'sk'])).toBeUndefined();
  });

  it('checkActionCount, checkDistinctItem and checkTransactionSize throw TransactionLimitError', () => {
    expect(() => checkActionCount(100, 0)).not.toThrow();
    expect(() => checkActionCount(100)).toThrow(TransactionLimitError);
    const seen = new Set([itemIdentity('t', { pk: 'a' })]);
    expect(() => checkDistinctItem({ tableName: 't', key: { pk: 'a' } }, seen)).toThrow(TransactionLimitError);
    expect(() => checkDistinctItem({ tableName: 't', key: { pk: 'b' } }, seen, { tableName: 't', key: { pk: 'b' } })).toThrow(
      /idempotency record/,
    );
    expect(() => checkTransactionSize(MAX_TRANSACTION_BYTES)).not.toThrow();
    expect(() => checkTransactionSize(MAX_TRANSACTION_BYTES + 1)).toThrow(TransactionLimitError);
  });

  it('estimateActionSize counts items, keys, expressions and values', () => {
    const small = estimateActionSize({ TableName: 't', Key: { pk: 'a' } });
    const bigger = estimateActionSize({
      TableName: 't',
      Key: { pk: 'a' },
      UpdateExpression: 'SET #a = :a',
      ExpressionAttributeNames: { '#a': 'a' },
      ExpressionAttributeValues: { ':a': 'x'.repeat(1000) },
    });
    expect(bigger - small).toBeGreaterThan(1000);
  });
});
