/**
 * Type tests of `idempotent(fn, options)`: the wrapped function keeps `fn`'s
 * parameters and resolves its result; `key` and `payload` are typed by those
 * parameters. Checked by the compiler (`npm run typecheck`); each case also
 * runs as a test naming what it proves.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  claim,
  idempotent,
  transaction,
  type IdempotencyStore,
  type IdempotentOptions,
  type SqsIdempotencyOptions,
} from '../../src/index.js';
import { MemoryIdempotencyStore } from '../../src/testing/index.js';

const store: IdempotencyStore = new MemoryIdempotencyStore();

describe('idempotent keeps the wrapped function’s signature', () => {
  it('parameters and a promise of the result, from an async or a sync function', () => {
    const charge = idempotent(async (orderNo: string, cents: number) => ({ orderNo, cents }), {
      store,
      consumer: 'charges',
      key: (orderNo) => orderNo,
    });
    expectTypeOf(charge).parameters.toEqualTypeOf<[orderNo: string, cents: number]>();
    expectTypeOf(charge).returns.toEqualTypeOf<Promise<{ orderNo: string; cents: number }>>();
    const double = idempotent((n: number) => n * 2, { store, consumer: 'double', key: (n) => n });
    expectTypeOf(double).returns.toEqualTypeOf<Promise<number>>();
    expect(typeof charge).toBe('function');
  });

  it('key and payload get the parameters; a wrong key or a wrong call is refused', () => {
    const send = idempotent(async (_to: { id: string }, text: string) => text.length, {
      store,
      consumer: 'emails',
      key: (to, text) => {
        expectTypeOf(to).toEqualTypeOf<{ id: string }>();
        expectTypeOf(text).toEqualTypeOf<string>();
        return to.id;
      },
      payload: (_to, text) => text,
    });
    // @ts-expect-error a key must be a string or a number
    idempotent(async (n: number) => n, { store, consumer: 'c', key: (n) => ({ n }) });
    // @ts-expect-error the wrapped function takes fn's parameters
    void (() => send('not an object', 'x'));
    expect(typeof send).toBe('function');
  });
});

describe('idempotent takes the heartbeat and the lease as the middlewares do', () => {
  it("strategy: what claim() returns; the lease: the middlewares' type; no top-level heartbeat", () => {
    const fn = async (id: string) => id;
    const key = (id: string) => id;
    idempotent(fn, { store, consumer: 'c', key, strategy: claim({ heartbeat: { everyMs: 10_000 } }) });
    // @ts-expect-error idempotent() has no transaction
    expect(() => idempotent(fn, { store, consumer: 'c', key, strategy: transaction() })).toThrow(TypeError);
    // @ts-expect-error nor pipelined claims
    expect(() => idempotent(fn, { store, consumer: 'c', key, strategy: claim({ pipelined: true }) })).toThrow(TypeError);
    // @ts-expect-error the heartbeat is claim({ heartbeat }), in one place
    expect(() => idempotent(fn, { store, consumer: 'c', key, heartbeat: true })).toThrow(TypeError);
    expectTypeOf<IdempotentOptions<[string]>['lease']>().toEqualTypeOf<SqsIdempotencyOptions['lease']>();
  });
});
