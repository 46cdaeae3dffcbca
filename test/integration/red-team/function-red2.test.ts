/**
 * Red-team scenarios for `idempotent(fn)` on DynamoDB Local: `this`,
 * results that JSON cannot keep as they are, empty and very long keys,
 * concurrent calls with other arguments, sync functions.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, idempotent, PayloadMismatchError } from '../../../src/index.js';
import { KeyTooLongError, MissingKeyError } from '../../../src/engine/errors.js';
import { Deferred } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';

describe('idempotent(fn) red team (DynamoDB Local)', () => {
  const { client, doc } = testDynamo();
  let store: DynamoDBIdempotencyStore;
  let seq = 0;
  const consumer = () => `red2-${(seq += 1)}`;
  beforeAll(async () => {
    store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
  });

  it('calls fn with the this of the call (a wrapped method keeps its object)', async () => {
    class Payments {
      readonly prefix = 'pay';
      charge = idempotent(
        async function (this: Payments, orderNo: string) {
          return `${this.prefix}-${orderNo}`;
        },
        { store, consumer: consumer(), key: (orderNo: string) => orderNo },
      );
    }
    const payments = new Payments();
    await expect(payments.charge('o-1')).resolves.toBe('pay-o-1');
    await expect(payments.charge('o-1')).resolves.toBe('pay-o-1');
  });

  it('a sync fn, its result and its sync throw', async () => {
    let runs = 0;
    const add = idempotent(
      (a: number, b: number) => {
        runs += 1;
        if (a < 0) throw new RangeError('negative');
        return a + b;
      },
      { store, consumer: consumer(), key: (a, b) => `${a}+${b}` },
    );
    await expect(add(1, 2)).resolves.toBe(3);
    await expect(add(1, 2)).resolves.toBe(3);
    await expect(add(-1, 2)).rejects.toThrow(RangeError);
    await expect(add(-1, 2)).rejects.toThrow(RangeError);
    expect(runs).toBe(3);
  });

  it('undefined and null results replay as themselves', async () => {
    const c = consumer();
    const none = idempotent(async (_k: string) => undefined, { store, consumer: c, key: (k) => k });
    await expect(none('u')).resolves.toBeUndefined();
    await expect(none('u')).resolves.toBeUndefined();
    const nil = idempotent(async (_k: string) => null, { store, consumer: `${c}-null`, key: (k) => k });
    await expect(nil('n')).resolves.toBeNull();
    await expect(nil('n')).resolves.toBeNull();
  });

  it('the first call and a duplicate resolve the same value for a result JSON cannot keep as is, or the first call says so', async () => {
    for (const [name, value] of [
      ['date', new Date(0)],
      ['map', new Map([['a', 1]])],
      ['bigint', 10n],
    ] as const) {
      let runs = 0;
      const f = idempotent(
        async (_k: string): Promise<unknown> => {
          runs += 1;
          return value;
        },
        { store, consumer: consumer(), key: (k) => k },
      );
      const first = await f(name).then(
        (v) => ({ ok: true as const, v }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      const second = await f(name).then(
        (v) => ({ ok: true as const, v }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      expect(runs, name).toBe(1);
      // Either both calls see one value, or the first is told the result cannot be kept.
      if (first.ok) expect(second, name).toEqual(first);
      else expect(String(first.e), name).toMatch(/result/);
    }
  });

  it('an empty key is a MissingKeyError; a key over 1024 bytes is a KeyTooLongError, and works with hashKeys, distinct', async () => {
    const c = consumer();
    const f = idempotent(async (k: string) => k.length, { store, consumer: c, key: (k) => k });
    await expect(f('')).rejects.toBeInstanceOf(MissingKeyError);
    const long = 'x'.repeat(5_000);
    await expect(f(long)).rejects.toBeInstanceOf(KeyTooLongError);
    const hashed = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client), hashKeys: true });
    const g = idempotent(async (k: string) => k.length, { store: hashed, consumer: c, key: (k) => k });
    await expect(g(long)).resolves.toBe(5_000);
    await expect(g(`${long}y`)).resolves.toBe(5_001);
    await expect(g(long)).resolves.toBe(5_000);
  });

  it('concurrent calls under one key with other arguments: fn runs once, the other is a PayloadMismatchError', async () => {
    let runs = 0;
    const entered = new Deferred<void>();
    const gate = new Deferred<void>();
    const f = idempotent(
      async (_k: string, amount: number) => {
        runs += 1;
        entered.resolve();
        await gate.promise;
        return amount;
      },
      { store, consumer: consumer(), key: (k) => k },
    );
    const both = Promise.allSettled([f('k', 1), f('k', 2)]);
    await entered.promise;
    gate.resolve();
    const settled = await both;
    expect(runs).toBe(1);
    const fulfilled = settled.flatMap((s, i) => (s.status === 'fulfilled' ? [[s.value, i + 1]] : []));
    expect(fulfilled).toHaveLength(1);
    expect(fulfilled[0]?.[0]).toBe(fulfilled[0]?.[1]);
    const rejected = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    expect(rejected[0]).toBeInstanceOf(PayloadMismatchError);
  });

  it('a duplicate resolves a deep copy: changing it changes neither the stored result nor the next copy', async () => {
    const f = idempotent(async (_k: string) => ({ items: [{ n: 1 }] }), { store, consumer: consumer(), key: (k) => k });
    const first = await f('d');
    (first.items[0] as { n: number }).n = 99;
    const second = await f('d');
    expect(second).toEqual({ items: [{ n: 1 }] });
    (second.items[0] as { n: number }).n = 42;
    expect(await f('d')).toEqual({ items: [{ n: 1 }] });
  });
});
