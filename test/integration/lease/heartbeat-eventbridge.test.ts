/**
 * Issue 14, item 4 on EventBridge: `strategy: claim({ heartbeat })` through
 * `eventBridgeIdempotency` + `eventBridgeHandler` on DynamoDB Local. A retry of the
 * same key after the first lease has passed finds it in progress while the
 * long effect runs; a stolen claim aborts `signal` and the event is logged lease-lost.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  claim,
  DynamoDBIdempotencyStore,
  eventBridgeIdempotency,
  eventBridgeHandler,
  IdempotencyInProgressError,
  LeaseLostError,
  type EventContext,
} from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { Deferred, eventBridgeEvent, lambdaContext } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;
const lease = { marginMs: 0, floorMs: 0, capMs: 1_500 } as const;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const paid = (orderNo: string): OrderPaid => eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo } });
const context = () => lambdaContext({ functionName: 'points-fn', timeoutMs: 30_000 });

describe('lease heartbeat through eventBridgeIdempotency + eventBridgeHandler (DynamoDB Local)', () => {
  const { client, doc } = testDynamo();
  let tableName = '';
  beforeAll(async () => {
    tableName = await freshTable(client);
  });

  function build(fn: (event: OrderPaid, ctx: EventContext) => Promise<string>, lines: BatchLogLine[]) {
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName });
    const handler = middy<OrderPaid, string>()
      .use(
        eventBridgeIdempotency<OrderPaid, string>({
          store,
          consumer: 'points',
          key: (e) => e.detail.orderNo,
          lease,
          strategy: claim({ heartbeat: { everyMs: 200 } }),
          logger: (l) => lines.push(l),
        }),
      )
      .handler(eventBridgeHandler<OrderPaid, string>(fn));
    return { store, handler };
  }

  it('a retry after the first lease finds the key in progress while the long effect runs; the effect runs once', async () => {
    const lines: BatchLogLine[] = [];
    const started = new Deferred<void>();
    const finish = new Deferred<void>();
    let effects = 0;
    const { handler } = build(async (_e, { signal }) => {
      started.resolve();
      await finish.promise;
      signal.throwIfAborted();
      effects += 1;
      return 'done';
    }, lines);
    const first = handler(paid('eb-held'), context());
    await started.promise;
    await sleep(lease.capMs + 1_000);
    await expect(handler(paid('eb-held'), context())).rejects.toBeInstanceOf(IdempotencyInProgressError);
    finish.resolve();
    expect(await first).toBe('done');
    expect(effects).toBe(1);
    expect(lines.map((l) => l.records[0]?.outcome).sort()).toEqual(['completed', 'in-progress']);
  }, 15_000);

  it('a stolen claim aborts the signal with a LeaseLostError; the event is logged lease-lost and the thief’s record stands', async () => {
    const lines: BatchLogLine[] = [];
    const started = new Deferred<void>();
    const { store, handler } = build(async (_e, { signal }) => {
      started.resolve();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      signal.throwIfAborted();
      return 'applied';
    }, lines);
    const running = handler(paid('eb-stolen'), context());
    await started.promise;
    const id = store.recordId('points', 'eb-stolen');
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { id },
        UpdateExpression: 'SET #o = :t',
        ExpressionAttributeNames: { '#o': 'owner' },
        ExpressionAttributeValues: { ':t': 'thief' },
      }),
    );
    await expect(running).rejects.toBeInstanceOf(LeaseLostError);
    expect(lines.map((l) => l.records[0]?.outcome)).toEqual(['lease-lost']);
    expect((await store.get(id))?.owner).toBe('thief');
  }, 15_000);
});
