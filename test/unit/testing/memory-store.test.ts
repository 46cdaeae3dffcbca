/**
 * A claim-only store (the memory store, which has no `commit`) behind both
 * middlewares, end to end: accepted for the claim strategy, refused at
 * build time for the transaction strategy with a TypeError naming "store".
 */
import middy from '@middy/core';
import type { EventBridgeEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eachRecord, eventBridgeIdempotency, jsonBody, sqsIdempotency, transaction } from '../../../src/index.js';
import { eventBridgeEvent, lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; amount: number }>;

const order = (orderNo: string) => sqsRecord({ body: { orderNo } });
const paid = (orderNo: string, amount = 10): OrderPaid =>
  eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo, amount } });

describe('a claim-only store behind the middlewares', () => {
  it('sqsIdempotency + eachRecord: effects once per business key; only the failed record is retried', async () => {
    const clock = new ManualClock(Date.now());
    const store = new MemoryIdempotencyStore({ clock });
    const effects = new Map<string, number>();
    let failO2 = true;
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, consumer: 'payments', key: (r) => jsonBody<{ orderNo: string }>(r).orderNo, logger: false }))
      .handler(
        eachRecord(async (_record, { key }) => {
          if (key === 'o-2' && failO2) throw new Error('downstream down');
          effects.set(key, (effects.get(key) ?? 0) + 1);
        }),
      );
    const context = () => lambdaContext({ functionName: 'payments', timeoutMs: 30_000, clock });

    const first = [order('o-1'), order('o-2')];
    const response = await handler(sqsEvent(first), context());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: first[1]?.messageId }]);
    expect(await store.get(store.recordId('payments', 'o-2'))).toBeUndefined(); // released for the retry

    failO2 = false;
    // o-1 re-sent by its producer (new message id) and o-2 redelivered.
    expect(await handler(sqsEvent([order('o-1'), order('o-2')]), context())).toEqual({ batchItemFailures: [] });
    expect(Object.fromEntries(effects)).toEqual({ 'o-1': 1, 'o-2': 1 });
    for (const key of ['o-1', 'o-2']) expect((await store.get(store.recordId('payments', key)))?.status).toBe('COMPLETED');
  });

  it('eventBridgeIdempotency: a re-published event replays the stored result; a failed run is released and retried; another payload is refused', async () => {
    const store = new MemoryIdempotencyStore();
    let runs = 0;
    let fail = true;
    const handler = middy<OrderPaid, { awarded: number }>()
      .use(
        eventBridgeIdempotency<OrderPaid, { awarded: number }>({
          store,
          consumer: 'points',
          key: (e) => e.detail.orderNo,
          storeResult: true,
          logger: false,
        }),
      )
      .handler(async (event) => {
        runs += 1;
        if (fail) throw new Error('first attempt fails');
        return { awarded: event.detail.amount * 2 };
      });
    const context = lambdaContext({ functionName: 'points', timeoutMs: 30_000 });
    await expect(handler(paid('e-1'), context)).rejects.toThrow('first attempt fails');
    fail = false;
    expect(await handler(paid('e-1'), context)).toEqual({ awarded: 20 });
    expect(await handler(paid('e-1'), context)).toEqual({ awarded: 20 }); // a new event id, the same business event
    expect(runs).toBe(2);
    // The payload hash is kept: the same key with another payload is refused, not replayed.
    await expect(handler(paid('e-1', 99), context)).rejects.toThrow(/different payload/);
    expect(runs).toBe(2);
  });

  it('strategy "transaction" with a store without commit is a TypeError naming "store", for both middlewares', () => {
    const store = new MemoryIdempotencyStore();
    expect(() => sqsIdempotency({ store, key: (r) => r.messageId, strategy: transaction() })).toThrow(TypeError);
    expect(() => sqsIdempotency({ store, key: (r) => r.messageId, strategy: transaction() })).toThrow(/option "store"/);
    expect(() => eventBridgeIdempotency({ store, key: (e) => e.id, strategy: transaction() })).toThrow(/option "store"/);
  });
});

describe('MemoryIdempotencyStore', () => {
  it('checks its options at construction: an unknown or wrong option is a TypeError naming it', () => {
    expect(() => new MemoryIdempotencyStore({ retentionMs: 0 })).toThrow(/"retentionMs"/);
    expect(() => new MemoryIdempotencyStore({ release: 'forget' as never })).toThrow(/"release"/);
    expect(() => new MemoryIdempotencyStore({ ttl: 5 } as never)).toThrow(/unknown option "ttl"/);
  });

  it('hashKeys keeps the SHA-256 of the key in the record id, not the key', async () => {
    const store = new MemoryIdempotencyStore({ hashKeys: true });
    const id = store.recordId('payments', 'alice@example.com');
    expect(id).toMatch(/^payments#[0-9a-f]{64}$/);
    const claim = await store.claim({ consumer: 'payments', key: 'alice@example.com', leaseMs: 1_000 });
    expect(claim.id).toBe(id);
  });
});
