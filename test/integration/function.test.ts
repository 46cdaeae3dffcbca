/**
 * Issue 14, item 5: `idempotent(fn, options)` outside Middy, against
 * DynamoDB Local: concurrent calls with one key run `fn` once, duplicates
 * get a copy of the stored result, a failure releases for the retry, a
 * changed argument is a payload mismatch, and a call whose lease was taken
 * over rejects with `LeaseLostError` unless a heartbeat kept it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  claim,
  DynamoDBIdempotencyStore,
  IdempotencyInProgressError,
  idempotent,
  LeaseLostError,
  PayloadMismatchError,
  transaction,
} from '../../src/index.js';
import { MissingKeyError } from '../../src/engine/errors.js';
import { Deferred, MemoryIdempotencyStore } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('idempotent(fn) on DynamoDB Local', () => {
  const { client, doc } = testDynamo();
  let store: DynamoDBIdempotencyStore;
  let consumerSeq = 0;
  const consumer = () => `fn-${(consumerSeq += 1)}`;
  beforeAll(async () => {
    store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
  });

  it('two concurrent calls with one key (two wrappers, a real race) run fn once; the other is in progress', async () => {
    let runs = 0;
    const gate = new Deferred<void>();
    const charge = async (orderNo: string) => {
      runs += 1;
      await gate.promise;
      return { charged: orderNo };
    };
    const options = { store, consumer: consumer(), key: (orderNo: string) => orderNo };
    const [a, b] = [idempotent(charge, options), idempotent(charge, options)];
    const both = Promise.allSettled([a('o-1'), b('o-1')]);
    await sleep(200);
    gate.resolve();
    const settled = await both;
    expect(runs).toBe(1);
    expect(settled.filter((s) => s.status === 'fulfilled').map((s) => s.value)).toEqual([{ charged: 'o-1' }]);
    const rejected = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toBeInstanceOf(IdempotencyInProgressError);
  });

  it('with inProgress: "wait" the concurrent call waits and resolves the first call’s result', async () => {
    let runs = 0;
    const once = idempotent(
      async (n: number) => {
        runs += 1;
        await sleep(300);
        return { n, at: runs };
      },
      { store, consumer: consumer(), key: (n) => n, inProgress: 'wait', wait: { initialDelayMs: 50 } },
    );
    expect(await Promise.all([once(7), once(7)])).toEqual([
      { n: 7, at: 1 },
      { n: 7, at: 1 },
    ]);
    expect(runs).toBe(1);
  });

  it('a duplicate call resolves a copy of the stored result without running fn', async () => {
    let runs = 0;
    const build = idempotent(
      async (id: string) => {
        runs += 1;
        return { id, lines: ['a', 'b'] };
      },
      { store, consumer: consumer(), key: (id) => id },
    );
    const first = await build('x');
    const second = await build('x');
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    second.lines.push('mutated');
    expect(await build('x')).toEqual({ id: 'x', lines: ['a', 'b'] });
    expect(runs).toBe(1);
  });

  it('an error releases the claim and is rethrown; the retry runs fn again', async () => {
    let runs = 0;
    const flaky = idempotent(
      async (id: string) => {
        runs += 1;
        if (runs === 1) throw new Error('provider down');
        return `ok-${id}`;
      },
      { store, consumer: consumer(), key: (id) => id },
    );
    await expect(flaky('r')).rejects.toThrow('provider down');
    expect(await flaky('r')).toBe('ok-r');
    expect(await flaky('r')).toBe('ok-r');
    expect(runs).toBe(2);
  });

  it('other arguments under one key are a PayloadMismatchError (unless payload: false); no key is a MissingKeyError', async () => {
    const c = consumer();
    let runs = 0;
    const pay = idempotent(
      async (_orderNo: string, cents: number) => {
        runs += 1;
        return cents;
      },
      { store, consumer: c, key: (orderNo) => orderNo },
    );
    expect(await pay('p', 100)).toBe(100);
    await expect(pay('p', 200)).rejects.toBeInstanceOf(PayloadMismatchError);
    const loose = idempotent(async (_orderNo: string, cents: number) => cents, { store, consumer: c, key: (o) => o, payload: false });
    expect(await loose('p', 999)).toBe(100);
    await expect(pay('', 1)).rejects.toBeInstanceOf(MissingKeyError);
    expect(runs).toBe(1);
  });

  it('a re-sent call whose argument differs in sentAt: a duplicate with payload narrowed; by default a PayloadMismatchError naming the option', async () => {
    interface Paid {
      readonly orderNo: string;
      readonly cents: number;
      readonly sentAt: string;
    }
    let runs = 0;
    const charge = async (paid: Paid) => {
      runs += 1;
      return paid.cents;
    };
    const narrowed = idempotent(charge, {
      store,
      consumer: consumer(),
      key: (paid) => paid.orderNo,
      payload: ({ sentAt: _sentAt, ...fields }) => fields,
    });
    expect(await narrowed({ orderNo: 'r-1', cents: 100, sentAt: 't1' })).toBe(100);
    expect(await narrowed({ orderNo: 'r-1', cents: 100, sentAt: 't2' })).toBe(100);
    expect(runs).toBe(1);
    const strict = idempotent(charge, { store, consumer: consumer(), key: (paid) => paid.orderNo });
    expect(await strict({ orderNo: 'r-1', cents: 100, sentAt: 't1' })).toBe(100);
    const refused = strict({ orderNo: 'r-1', cents: 100, sentAt: 't2' });
    await expect(refused).rejects.toBeInstanceOf(PayloadMismatchError);
    await expect(refused).rejects.toThrow(/different arguments\. .*set the option payload .*docs\/options\.md#the-payload-check\.$/);
    expect(runs).toBe(2);
  });

  it('a call that outlives its lease is taken over and rejects with LeaseLostError; with a heartbeat it is not', async () => {
    for (const heartbeat of [false, true]) {
      let runs = 0;
      const gate = new Deferred<void>();
      const slow = idempotent(
        async (id: string) => {
          runs += 1;
          if (runs === 1) await gate.promise;
          return `${id}-${runs}`;
        },
        {
          store,
          consumer: consumer(),
          key: (id) => id,
          lease: { floorMs: 600 },
          strategy: claim({ heartbeat: heartbeat ? { everyMs: 100 } : false }),
        },
      );
      const first = slow('L');
      await sleep(1_200); // past the first lease
      const second = slow('L').catch((e: unknown) => e);
      const secondResult = await second;
      gate.resolve();
      if (heartbeat) {
        expect(secondResult).toBeInstanceOf(IdempotencyInProgressError);
        expect(await first).toBe('L-1');
        expect(runs).toBe(1);
      } else {
        expect(secondResult).toBe('L-2');
        await expect(first).rejects.toBeInstanceOf(LeaseLostError);
        expect(runs).toBe(2);
      }
    }
  }, 15_000);
});

describe('idempotent options are checked when it is built', () => {
  const store = new MemoryIdempotencyStore();
  const fn = async (id: string) => id;
  const key = (id: string) => id;
  it.each([
    ['an unknown option', { store, consumer: 'c', key, retries: 3 }, /unknown option "retries"/],
    ['no consumer', { store, key }, /option "consumer" is required/],
    ['no key', { store, consumer: 'c' }, /option "key" is required/],
    ['a store that is not one', { store: {}, consumer: 'c', key }, /option "store"/],
    ['lease.floorMs 0', { store, consumer: 'c', key, lease: { floorMs: 0 } }, /option "lease"/],
    ['lease.floorMs above capMs', { store, consumer: 'c', key, lease: { floorMs: 2_000, capMs: 1_000 } }, /option "lease"/],
    ['the former lease.ms', { store, consumer: 'c', key, lease: { ms: 600 } }, /option "lease".*lease\.ms is now lease\.floorMs/],
    ['the former lease.heartbeat', { store, consumer: 'c', key, lease: { heartbeat: true } }, /option "lease"/],
    [
      'the former top-level heartbeat',
      { store, consumer: 'c', key, heartbeat: true },
      /option "heartbeat".*strategy: claim\(\{ heartbeat \}\)/,
    ],
    [
      'a strategy that is not claim()',
      { store, consumer: 'c', key, strategy: transaction() },
      /option "strategy" must be what claim\(\) returns/,
    ],
    ['pipelined claims', { store, consumer: 'c', key, strategy: claim({ pipelined: true }) }, /option "strategy"/],
    ['a copy of a claim strategy', { store, consumer: 'c', key, strategy: { ...claim() } }, /option "strategy"/],
    ['a wrong inProgress', { store, consumer: 'c', key, inProgress: 'block' }, /option "inProgress"/],
  ])('%s is a TypeError naming it', (_name, options, message) => {
    expect(() => idempotent(fn, options as never)).toThrow(TypeError);
    expect(() => idempotent(fn, options as never)).toThrow(message);
  });

  it('fn not a function, or a heartbeat on a store without renew, is a TypeError', () => {
    expect(() => idempotent('nope' as never, { store, consumer: 'c', key })).toThrow(TypeError);
    const { renew: _renew, ...noRenew } = {
      recordId: store.recordId.bind(store),
      claim: store.claim.bind(store),
      complete: store.complete.bind(store),
      release: store.release.bind(store),
      get: store.get.bind(store),
      renew: undefined,
    };
    expect(() => idempotent(fn, { store: noRenew, consumer: 'c', key, strategy: claim({ heartbeat: true }) })).toThrow(
      /^idempotent: option "strategy" has heartbeat, but the store has no renew method/,
    );
    expect(() => idempotent(fn, { store: noRenew, consumer: 'c', key, strategy: claim() })).not.toThrow();
  });
});
