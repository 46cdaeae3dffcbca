/**
 * Every replay is an independent value (issue 10, item 4): a caller that
 * mutates a replayed result must not change what the next replay returns,
 * whatever path handed it out (the warm cache, the `inProgress: 'wait'`
 * read, `eventBridgeHandler`'s duplicate, the store itself).
 */
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eventBridgeIdempotency, eventBridgeHandler, transaction } from '../../src/index.js';
import { Deferred, eventBridgeEvent, lambdaContext } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;
interface Receipt {
  lines: string[];
}

async function cachedStore(): Promise<DynamoDBIdempotencyStore> {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  return new DynamoDBIdempotencyStore({ client: doc, tableName: table, cache: { maxEntries: 100 } });
}

const paid = (orderNo: string): OrderPaid => eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo } });
const context = () => lambdaContext({ functionName: 'receipts', timeoutMs: 30_000 });

describe('replays are independent values (cache on)', () => {
  it('claim strategy: mutating a replayed result does not change the next replay', async () => {
    const store = await cachedStore();
    let runs = 0;
    const handler = middy<OrderPaid, Receipt>()
      .use(eventBridgeIdempotency<OrderPaid, Receipt>({ store, consumer: 'c', key: (e) => e.detail.orderNo, logger: false }))
      .handler(async () => {
        runs += 1;
        return { lines: ['original'] };
      });
    await handler(paid('o-1'), context());
    const replay = await handler(paid('o-1'), context());
    replay.lines.push('mutated by the caller');
    const again = await handler(paid('o-1'), context());
    expect(again).toEqual({ lines: ['original'] });
    expect(again).not.toBe(replay);
    expect(runs).toBe(1);
  });

  it('inProgress "wait": mutating the waited-for result does not change a later replay from the cache', async () => {
    const store = await cachedStore();
    const hold = new Deferred();
    const started = new Deferred();
    const first = middy<OrderPaid, Receipt>()
      .use(eventBridgeIdempotency<OrderPaid, Receipt>({ store, consumer: 'w', key: (e) => e.detail.orderNo, logger: false }))
      .handler(async () => {
        started.resolve();
        await hold.promise;
        return { lines: ['original'] };
      });
    // Another container's store writes; this one (a fresh store, same table) waits and then replays from its cache.
    const waiting = middy<OrderPaid, Receipt>()
      .use(
        eventBridgeIdempotency<OrderPaid, Receipt>({
          store,
          consumer: 'w',
          key: (e) => e.detail.orderNo,
          logger: false,
          inProgress: 'wait',
          wait: { initialDelayMs: 20, maxDelayMs: 40 },
        }),
      )
      .handler(async () => ({ lines: ['must not run'] }));
    const running = first(paid('o-2'), context());
    await started.promise;
    const waited = waiting(paid('o-2'), context());
    setTimeout(() => hold.resolve(), 100);
    const result = await waited;
    await running;
    expect(result).toEqual({ lines: ['original'] });
    result.lines.push('mutated by the caller');
    expect(await waiting(paid('o-2'), context())).toEqual({ lines: ['original'] });
  });

  it("eventBridgeHandler's duplicate: mutating a replayed result does not change the next replay", async () => {
    const store = await cachedStore();
    let runs = 0;
    const handler = middy<OrderPaid, Receipt>()
      .use(
        eventBridgeIdempotency<OrderPaid>({ store, consumer: 't', strategy: transaction(), key: (e) => e.detail.orderNo, logger: false }),
      )
      .handler(
        eventBridgeHandler<OrderPaid, Receipt>(async () => {
          runs += 1;
          return { lines: ['original'] };
        }),
      );
    await handler(paid('o-3'), context());
    const replay = await handler(paid('o-3'), context());
    replay.lines.push('mutated by the caller');
    expect(await handler(paid('o-3'), context())).toEqual({ lines: ['original'] });
    // The transaction strategy runs the handler before its commit finds the duplicate: only the commit is deduplicated.
    expect(runs).toBe(3);
  });

  it('store: records handed out by claim, get and commit share nothing with the cache', async () => {
    const store = await cachedStore();
    const claim = await store.claim({ consumer: 's', key: 'k', leaseMs: 30_000 });
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    await store.complete({ id: claim.id, token: claim.token, result: { lines: ['original'] }, storeResult: true });
    const read = await store.get(claim.id);
    expect(read?.result).toEqual({ lines: ['original'] });
    (read?.result as Receipt | undefined)?.lines.push('mutated');
    const cached = await store.claim({ consumer: 's', key: 'k', leaseMs: 30_000 });
    expect(cached).toMatchObject({ kind: 'completed', fromCache: true, existing: { result: { lines: ['original'] } } });
    if (cached.kind !== 'completed') return;
    (cached.existing.result as Receipt).lines.push('mutated');
    const committed = await store.commit({ consumer: 's', key: 'k', actions: [] });
    expect(committed).toMatchObject({ kind: 'duplicate', fromCache: true, existing: { result: { lines: ['original'] } } });
  });
});
