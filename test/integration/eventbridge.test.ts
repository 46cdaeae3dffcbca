/**
 * eventBridgeIdempotency against real DynamoDB Local: replays, in-progress
 * duplicates, failures, undefined results, other middlewares in the chain,
 * and the transaction strategy.
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  IdempotencyInProgressError,
  eventBridgeIdempotency,
  eventBridgeHandler,
  type EventBridgeIdempotencyOptions,
  transaction,
} from '../../src/index.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import { Deferred, eventBridgeEvent, lambdaContext } from '../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; amount: number }>;

async function setup() {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table });
  const lines: BatchLogLine[] = [];
  let runs = 0;
  function build<TResult>(
    fn: (event: OrderPaid) => Promise<TResult>,
    options: Partial<EventBridgeIdempotencyOptions<OrderPaid, TResult>> = {},
  ) {
    return middy<OrderPaid, TResult>()
      .use(
        eventBridgeIdempotency<OrderPaid, TResult>({
          store,
          consumer: 'points',
          key: (e) => e.detail.orderNo,
          logger: (l) => lines.push(l),
          ...options,
        }),
      )
      .handler(async (event: OrderPaid) => {
        runs += 1;
        return fn(event);
      });
  }
  const paid = (orderNo: string, amount = 10): OrderPaid =>
    eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo, amount } });
  const context = (timeoutMs = 30_000): Context => lambdaContext({ functionName: 'points-fn', timeoutMs });
  return { client, doc, store, lines, build, paid, context, runs: () => runs };
}

describe('eventBridgeIdempotency', () => {
  it('a duplicate returns the stored result without running the handler, marked as a replay', async () => {
    const s = await setup();
    const handler = s.build(async (e) => ({ awarded: e.detail.amount * 2 }));
    expect(await handler(s.paid('e1'), s.context())).toEqual({ awarded: 20 });
    // A producer re-publish: same business key, new event id.
    expect(await handler(s.paid('e1'), s.context())).toEqual({ awarded: 20 });
    expect(s.runs()).toBe(1);
    expect(s.lines.at(-1)?.records[0]).toMatchObject({ outcome: 'duplicate', replay: true });
  });

  it('a handler returning undefined is stored and replayed as undefined', async () => {
    const s = await setup();
    const handler = s.build(async () => undefined);
    expect(await handler(s.paid('e-undef'), s.context())).toBeUndefined();
    expect(await handler(s.paid('e-undef'), s.context())).toBeUndefined();
    expect(s.runs()).toBe(1);
    expect((await s.store.get(s.store.recordId('points', 'e-undef')))?.status).toBe('COMPLETED');
  });

  it('an unexpired in-progress duplicate throws IdempotencyInProgressError', async () => {
    const s = await setup();
    const hold = new Deferred();
    const started = new Deferred();
    const handler = s.build(async () => {
      started.resolve();
      await hold.promise;
      return 'first';
    });
    const first = handler(s.paid('e-busy'), s.context());
    await started.promise;
    const second = handler(s.paid('e-busy'), s.context());
    await expect(second).rejects.toBeInstanceOf(IdempotencyInProgressError);
    await expect(second).rejects.toMatchObject({ key: 'e-busy', existing: { status: 'IN_PROGRESS' } });
    hold.resolve();
    expect(await first).toBe('first');
  });

  it('inProgress "wait": the duplicate waits for the first and returns its result', async () => {
    const s = await setup();
    const hold = new Deferred();
    const started = new Deferred();
    const handler = s.build(
      async () => {
        started.resolve();
        await hold.promise;
        return { receipt: 'r-1' };
      },
      { inProgress: 'wait', wait: { initialDelayMs: 20, maxDelayMs: 50 } },
    );
    const first = handler(s.paid('e-wait'), s.context());
    await started.promise;
    const second = handler(s.paid('e-wait'), s.context());
    setTimeout(() => hold.resolve(), 150);
    expect(await second).toEqual({ receipt: 'r-1' });
    expect(await first).toEqual({ receipt: 'r-1' });
    expect(s.runs()).toBe(1);
  });

  it('a failure releases the claim and rethrows the original error; the retry runs', async () => {
    const s = await setup();
    let attempt = 0;
    const boom = new Error('downstream unavailable');
    const handler = s.build(async () => {
      attempt += 1;
      if (attempt === 1) throw boom;
      return 'ok';
    });
    await expect(handler(s.paid('e-fail'), s.context())).rejects.toBe(boom);
    expect(await s.store.get(s.store.recordId('points', 'e-fail'))).toBeUndefined();
    expect(await handler(s.paid('e-fail'), s.context())).toBe('ok');
  });

  it('works with other middlewares before and after it', async () => {
    const s = await setup();
    const order: string[] = [];
    const tracing: MiddlewareObj<OrderPaid, unknown> = {
      before: () => {
        order.push('tracing:before');
      },
      after: (request) => {
        order.push('tracing:after');
        request.response = { wrapped: request.response };
      },
    };
    const validator: MiddlewareObj<OrderPaid, unknown> = {
      before: (request) => {
        order.push('validator:before');
        if (request.event.detail.amount < 0) throw new Error('negative amount');
      },
    };
    const handler = middy<OrderPaid, unknown>()
      .use(tracing)
      .use(eventBridgeIdempotency<OrderPaid>({ store: s.store, consumer: 'chain', key: (e) => e.detail.orderNo, logger: false }))
      .use(validator)
      .handler(async () => {
        order.push('handler');
        return 42;
      });
    expect(await handler(s.paid('e-chain'), s.context())).toEqual({ wrapped: 42 });
    expect(order).toEqual(['tracing:before', 'validator:before', 'handler', 'tracing:after']);
    expect((await s.store.get(s.store.recordId('chain', 'e-chain')))?.result).toBe(42);
    // A replay is a Middy early response: neither the handler nor any `after` runs, outer ones included.
    expect(await handler(s.paid('e-chain'), s.context())).toBe(42);
    expect(order.filter((step) => step === 'handler')).toHaveLength(1);
    expect(order.filter((step) => step === 'tracing:after')).toHaveLength(1);
    await expect(handler(s.paid('e-neg', -1), s.context())).rejects.toThrow('negative amount');
    expect(await s.store.get(s.store.recordId('chain', 'e-neg'))).toBeUndefined();
  });

  it('a bad event and a missing key are clear typed errors', async () => {
    const s = await setup();
    const handler = s.build(async () => 'never');
    await expect(handler({ Records: [] } as never, s.context())).rejects.toThrow(/not an EventBridge event/);
    const noKey = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { amount: 1 } }) as unknown as OrderPaid;
    await expect(handler(noKey, s.context())).rejects.toMatchObject({ name: 'MissingKeyError' });
    expect(s.runs()).toBe(0);
  });

  it('an event refused before its handler still gets its line (and EMF document): a key too long, a claim the store refused', async () => {
    const s = await setup();
    const handler = s.build(async () => 'never');
    await expect(handler(s.paid('k'.repeat(2_000)), s.context())).rejects.toMatchObject({ name: 'KeyTooLongError' });
    expect(s.lines.at(-1)?.records[0]).toMatchObject({ outcome: 'invalid' });
    const throttled = new Proxy(s.store, {
      get(target, property) {
        if (property === 'claim') return async () => Promise.reject(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await expect(s.build(async () => 'never', { store: throttled })(s.paid('e-throttled'), s.context())).rejects.toThrow('slow down');
    expect(s.lines.at(-1)?.records[0]).toMatchObject({ outcome: 'failed' });
    expect(s.runs()).toBe(0);
  });

  it('transaction strategy: points awarded exactly once per order, with the result replayed', async () => {
    const s = await setup();
    const business = await freshTable(s.client, businessTable, 'points');
    const handler = middy<OrderPaid, { points: number }>()
      .use(
        eventBridgeIdempotency<OrderPaid>({
          store: s.store,
          consumer: 'points-tx',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          logger: false,
        }),
      )
      .handler(
        eventBridgeHandler.inTransaction<OrderPaid, { points: number }>(async (event, { tx }) => {
          const points = event.detail.amount;
          tx.put({
            TableName: business,
            Item: { pk: `ledger#${event.detail.orderNo}`, points },
            ConditionExpression: 'attribute_not_exists(pk)',
          });
          tx.update({
            TableName: business,
            Key: { pk: 'customer#c1' },
            UpdateExpression: 'ADD points :p',
            ExpressionAttributeValues: { ':p': points },
          });
          return { points };
        }),
      );
    const results = await Promise.all([1, 2, 3].map(() => handler(s.paid('e-tx', 7), s.context()).catch((e: Error) => e.name)));
    const again = await handler(s.paid('e-tx', 7), s.context());
    expect(again).toEqual({ points: 7 });
    const balance = await s.doc.send(new GetCommand({ TableName: business, Key: { pk: 'customer#c1' } }));
    expect(balance.Item?.['points']).toBe(7);
    expect(results.filter((r) => typeof r === 'object')).not.toHaveLength(0);
  });

  it('eventBridgeHandler.inTransaction under the claim strategy runs no handler: a TypeError naming both fixes, the claim released', async () => {
    const s = await setup();
    let runs = 0;
    const handler = middy<OrderPaid, string>()
      .use(eventBridgeIdempotency<OrderPaid, string>({ store: s.store, consumer: 'wrong', key: (e) => e.detail.orderNo, logger: false }))
      .handler(
        eventBridgeHandler.inTransaction<OrderPaid, string>(async (_event, { tx }) => {
          runs += 1;
          tx.put({ TableName: 'never', Item: { pk: 'x' } });
          return 'ran';
        }),
      );
    await expect(handler(s.paid('e-wrong'), s.context())).rejects.toThrow(
      /^eventBridgeHandler\.inTransaction: the strategy of eventBridgeIdempotency is not transaction\(\).*Use eventBridgeIdempotency\(\{ strategy: transaction\(\) \}\), or eventBridgeHandler\(fn\)/,
    );
    expect(runs).toBe(0);
    // Released: Lambda's retry claims it afresh (and meets the same error until the handler is fixed).
    expect(await s.store.get(s.store.recordId('wrong', 'e-wrong'))).toBeUndefined();
  });

  it('plain eventBridgeHandler under transaction() runs with no tx; the commit writes the idempotency record alone', async () => {
    const s = await setup();
    const seen: string[][] = [];
    const handler = middy<OrderPaid, string>()
      .use(
        eventBridgeIdempotency<OrderPaid, string>({
          store: s.store,
          consumer: 'plain-tx',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          logger: false,
        }),
      )
      .handler(
        eventBridgeHandler<OrderPaid, string>(async (event, ctx) => {
          seen.push(Object.keys(ctx).sort());
          return `done ${event.detail.orderNo}`;
        }),
      );
    expect(await handler(s.paid('e-plain'), s.context())).toBe('done e-plain');
    expect(seen).toEqual([['context', 'key', 'signal']]);
    expect((await s.store.get(s.store.recordId('plain-tx', 'e-plain')))?.status).toBe('COMPLETED');
    // The duplicate gets the stored result.
    expect(await handler(s.paid('e-plain'), s.context())).toBe('done e-plain');
  });

  it('after Middy’s early timeout the claim is left to its lease, not released under a running handler', async () => {
    const s = await setup();
    const handler = middy<OrderPaid, string>({ timeoutEarlyInMillis: 100 })
      .use(eventBridgeIdempotency<OrderPaid, string>({ store: s.store, consumer: 'slow', key: (e) => e.detail.orderNo, logger: false }))
      .handler(async () => {
        await new Promise((r) => setTimeout(r, 400));
        return 'late';
      });
    await expect(handler(s.paid('e-timeout'), lambdaContext({ timeoutMs: 250 }))).rejects.toMatchObject({ name: 'TimeoutError' });
    expect((await s.store.get(s.store.recordId('slow', 'e-timeout')))?.status).toBe('IN_PROGRESS');
    await expect(handler(s.paid('e-timeout'), s.context())).rejects.toBeInstanceOf(IdempotencyInProgressError);
  });

  it('options are checked when the middleware is built', async () => {
    const s = await setup();
    expect(() => eventBridgeIdempotency({ store: s.store, key: () => 'k', inProgres: 'wait' } as never)).toThrow(
      /unknown option "inProgres"/,
    );
    expect(() => eventBridgeIdempotency({ store: s.store, key: () => 'k', inProgress: 'spin' } as never)).toThrow(/option "inProgress"/);
  });
});
