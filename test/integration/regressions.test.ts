/**
 * Regressions found in a correctness review, each as a test against DynamoDB Local.
 * Each failed before its fix: results that do not marshall, wrapNumbers clients,
 * payload checks under the transaction strategy, timeout responses, FIFO
 * followers in another group, options passed as undefined.
 */
import middy from '@middy/core';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, EventBridgeEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  eachRecord,
  eventBridgeIdempotency,
  eventBridgeHandler,
  jsonBody,
  sqsIdempotency,
  type SqsIdempotencyOptions,
  type EventBridgeIdempotencyOptions,
  transaction,
} from '../../src/index.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import type { RecordHandler, TransactionRecordHandler } from '../../src/batch/runner-link.js';
import { eventBridgeEvent, lambdaContext, ManualClock, sqsEvent } from '../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';
import { failedIds, harness, order } from './sqs/harness.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; amount: number }>;

const paid = (orderNo: string, amount = 10): OrderPaid =>
  eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo, amount } });

describe('stored results that the DocumentClient cannot marshall', () => {
  it('EventBridge (storeResult default true, README client): a result holding an undefined field is recorded once; the retry does not run the effect again', async () => {
    const { client } = testDynamo();
    const table = await freshTable(client);
    // Exactly the client the README builds: DynamoDBDocumentClient.from(new DynamoDBClient({})).
    const doc = DynamoDBDocumentClient.from(client);
    const clock = new ManualClock(Date.now());
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock });
    let effects = 0;
    const handler = middy<OrderPaid, { receiptId: string; note?: string | undefined }>()
      .use(eventBridgeIdempotency<OrderPaid>({ store, consumer: 'receipts', key: (e) => e.detail.orderNo, logger: false }))
      .handler(async (event) => {
        effects += 1; // e.g. the receipt e-mail
        return { receiptId: `r-${event.detail.orderNo}`, note: undefined }; // an optional field left unset
      });
    const first = await handler(paid('eb-date'), lambdaContext({ functionName: 'f', timeoutMs: 10_000, clock })).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    // Lambda's async retry comes back after the lease has passed.
    clock.advance(60_000);
    await handler(paid('eb-date'), lambdaContext({ functionName: 'f', timeoutMs: 10_000, clock })).catch(() => undefined);
    expect({ effects, first }).toEqual({ effects: 1, first: 'ok' });
  });

  it('SQS claim strategy with storeResult: a result holding a Date is recorded once; the redelivery does not run the effect again', async () => {
    const h = await harness();
    const record = order('sqs-date');
    const fn: RecordHandler = (_r, { key }) => {
      h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
      return { at: new Date() };
    };
    const first = await h.handler(fn, { storeResult: true })(sqsEvent([record]), h.context(10_000));
    h.clock.advance(60_000); // visibility timeout + lease passed: SQS redelivers
    await h.handler(fn, { storeResult: true })(sqsEvent([record]), h.context(10_000));
    const error = h.lines[0]?.records[0]?.error?.message;
    expect({ effects: h.effects.get('sqs-date'), failed: failedIds(first).length, error }).toEqual({
      effects: 1,
      failed: 0,
      error: undefined,
    });
  });
});

describe('DocumentClient translate options', () => {
  it('a DocumentClient with unmarshallOptions.wrapNumbers: claim, complete and the SQS flow work', async () => {
    const { client } = testDynamo();
    const wrapped = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
      unmarshallOptions: { wrapNumbers: true },
    });
    const h = await harness({ client: wrapped });
    const record = order('wrap-1');
    const response = await h.handler()(sqsEvent([record]), h.context());
    expect(h.lines.at(-1)?.records[0]?.error).toBeUndefined();
    expect(failedIds(response)).toEqual([]);
    expect(h.effects.get('wrap-1')).toBe(1);
  });
});

describe('payload check under the transaction strategy', () => {
  it('SQS: the same key re-sent with ANOTHER payload is flagged (invalid), not acknowledged as a duplicate', async () => {
    const h = await harness();
    const first = order('tx-p', { amount: 10 });
    const changed = order('tx-p', { amount: 999 });
    await h.handler(undefined, { strategy: transaction() })(sqsEvent([first]), h.context());
    const response = await h.handler(undefined, { strategy: transaction() })(sqsEvent([changed]), h.context());
    expect(h.lines.at(-1)?.records[0]?.outcome).toBe('invalid');
    expect(failedIds(response)).toEqual([changed.messageId]);
  });

  it('EventBridge: the same key re-published with ANOTHER detail throws PayloadMismatchError instead of replaying', async () => {
    const { client, doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    const business = await freshTable(client, businessTable, 'points');
    const handler = middy<OrderPaid, { points: number }>()
      .use(
        eventBridgeIdempotency<OrderPaid>({
          store,
          consumer: 'points-tx',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          logger: false,
        }),
      )
      .handler(
        eventBridgeHandler.inTransaction<OrderPaid, { points: number }>(async (event, { tx }) => {
          tx.put({ TableName: business, Item: { pk: `ledger#${event.detail.orderNo}`, points: event.detail.amount } });
          return { points: event.detail.amount };
        }),
      );
    await handler(paid('tx-eb', 7), lambdaContext());
    await expect(handler(paid('tx-eb', 700), lambdaContext())).rejects.toMatchObject({ name: 'PayloadMismatchError' });
  });
});

describe('Middy early timeout with a timeoutEarlyResponse that returns', () => {
  it('records still running or never started are neither completed nor acknowledged', async () => {
    const h = await harness();
    const started: string[] = [];
    const slow = order('te-slow');
    const next = order('te-next');
    const handler = middy<SQSEvent, SQSBatchResponse>({ timeoutEarlyInMillis: 100, timeoutEarlyResponse: () => undefined })
      .use(
        sqsIdempotency({
          store: h.store,
          consumer: 'test',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: (l) => h.lines.push(l),
          safetyMarginMs: 0,
        }),
      )
      .handler(
        eachRecord(
          async (_r, { key }) => {
            started.push(key);
            await new Promise((r) => setTimeout(r, 400));
          },
          { concurrency: 1 },
        ),
      );
    const response = await handler(sqsEvent([slow, next]), lambdaContext({ functionName: 'fn', timeoutMs: 250 }));
    const nextRecord = await h.store.get(h.store.recordId('test', 'te-next'));
    await new Promise((r) => setTimeout(r, 600));
    // te-next never ran, so it must be neither recorded as done nor acknowledged; te-slow was still running.
    expect({ started, nextStatus: nextRecord?.status, retried: failedIds(response).sort() }).toEqual({
      started: ['te-slow'],
      nextStatus: undefined,
      retried: [slow.messageId, next.messageId].sort(),
    });
  });
});

describe('FIFO order with same-key followers', () => {
  it('a follower that is returned for retry holds back the later records of ITS group', async () => {
    const h = await harness();
    const leader = order('f-k1', {}, { groupId: 'G1' });
    const follower = order('f-k1', {}, { groupId: 'G2' }); // same event, re-sent under another group
    const after = order('f-k2', {}, { groupId: 'G2' });
    const fn: RecordHandler = (_r, { key }) => {
      if (key === 'f-k1') throw new Error('k1 fails');
      h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
    };
    const response = await h.handler(fn)(sqsEvent([leader, follower, after]), h.context());
    expect(failedIds(response)).toContain(follower.messageId);
    // G2 is [follower, after]: the follower comes back, so `after` must not run before it.
    expect(h.effects.get('f-k2')).toBeUndefined();
    expect(failedIds(response)).toContain(after.messageId);
  });
});

describe('options explicitly set to undefined', () => {
  const base = (h: Awaited<ReturnType<typeof harness>>): SqsIdempotencyOptions => ({
    store: h.store,
    consumer: 'test',
    key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
  });

  it('sqsIdempotency({ payload: undefined }) behaves as if payload were absent (the check passes undefined as "absent")', async () => {
    const h = await harness();
    const lines: BatchLogLine[] = [];
    const options = { ...base(h), logger: (l: BatchLogLine) => lines.push(l), payload: undefined } as unknown as SqsIdempotencyOptions;
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency(options))
      .handler(eachRecord(() => undefined));
    const record = order('u-payload');
    const response = await handler(sqsEvent([record]), h.context());
    expect(lines[0]?.records[0]?.error).toBeUndefined();
    expect(failedIds(response)).toEqual([]);
  });

  it('sqsIdempotency({ logger: undefined }) uses the default logger instead of failing the invocation', async () => {
    const h = await harness();
    const options = { ...base(h), logger: undefined } as unknown as SqsIdempotencyOptions;
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency(options))
      .handler(eachRecord(() => undefined));
    await expect(handler(sqsEvent([order('u-logger')]), h.context())).resolves.toEqual({ batchItemFailures: [] });
  });

  it('eventBridgeIdempotency({ inProgress: undefined }) throws at once for an in-progress duplicate (the default), not wait', async () => {
    const { client, doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    await store.claim({ consumer: 'u-eb', key: 'busy', leaseMs: 60_000 });
    const options = {
      store,
      consumer: 'u-eb',
      key: (e: OrderPaid) => e.detail.orderNo,
      logger: false,
      inProgress: undefined,
      wait: { maxMs: 1_500, initialDelayMs: 100, maxDelayMs: 200 },
    } as unknown as EventBridgeIdempotencyOptions<OrderPaid, string>;
    const handler = middy<OrderPaid, string>()
      .use(eventBridgeIdempotency<OrderPaid, string>(options))
      .handler(async () => 'x');
    const startedAt = Date.now();
    await expect(handler(paid('busy'), lambdaContext({ timeoutMs: 30_000 }) as Context)).rejects.toMatchObject({
      name: 'IdempotencyInProgressError',
    });
    expect(Date.now() - startedAt).toBeLessThan(500);
  });
});

describe('results that cannot be stored', () => {
  it('a result that is not JSON (BigInt): the effect is recorded once without it, the delivery acknowledged with a warning', async () => {
    const h = await harness();
    const record = order('big-int');
    const fn: RecordHandler = (_r, { key }) => {
      h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
      return { total: 10n };
    };
    const first = await h.handler(fn, { storeResult: true })(sqsEvent([record]), h.context());
    expect(failedIds(first)).toEqual([]);
    expect(h.lines.at(-1)?.records[0]).toMatchObject({ outcome: 'completed', resultNotStored: { name: 'UnstorableResultError' } });
    expect((await h.store.get(h.store.recordId('test', 'big-int')))?.status).toBe('COMPLETED');
    expect(failedIds(await h.handler(fn, { storeResult: true })(sqsEvent([record]), h.context()))).toEqual([]);
    expect(h.effects.get('big-int')).toBe(1);
  });

  it('transaction strategy: an oversized result commits the effect without it; the delivery is acknowledged with a warning', async () => {
    const h = await harness();
    const { client, doc } = testDynamo();
    const business = await freshTable(client, businessTable, 'biz');
    const fn: TransactionRecordHandler = (_r, { key, tx }) => {
      tx.put({ TableName: business, Item: { pk: key } });
      return 'x'.repeat(450 * 1024);
    };
    const record = order('tx-huge');
    const first = await h.txHandler(fn, { strategy: transaction(), storeResult: true })(sqsEvent([record]), h.context());
    expect(failedIds(first)).toEqual([]);
    expect(h.lines.at(-1)?.records[0]).toMatchObject({ outcome: 'completed', resultNotStored: { name: 'ItemTooLargeError' } });
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    expect((await doc.send(new GetCommand({ TableName: business, Key: { pk: 'tx-huge' } }))).Item).toBeDefined();
    expect(failedIds(await h.txHandler(fn, { strategy: transaction(), storeResult: true })(sqsEvent([record]), h.context()))).toEqual([]);
  });
});
