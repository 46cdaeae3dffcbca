/**
 * Regressions from a review, against DynamoDB Local: results DynamoDB cannot hold or
 * gives back in another type, bigint values in transaction actions, and a
 * few behaviours of the transaction/state paths that had no test.
 */
import middy from '@middy/core';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  BusinessConflictError,
  DynamoDBIdempotencyStore,
  eachRecord,
  eventBridgeIdempotency,
  jsonBody,
  sqsIdempotency,
  transitionAction,
  transitionFailure,
  versionedUpdate,
  versionedUpdateAction,
  versionedUpdateFailure,
  transaction,
} from '../../src/index.js';
import type { TransitionInput, VersionedUpdateInput } from '../../src/strategies/transaction/state.js';
import { eventBridgeEvent, lambdaContext, ManualClock, sqsEvent, sqsRecord } from '../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; amount: number }>;

const paid = (orderNo: string, amount = 10): OrderPaid =>
  eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo, amount } });

async function ebSetup() {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  const clock = new ManualClock(Date.now());
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock });
  let effects = 0;
  function build<T>(result: () => T) {
    return middy<OrderPaid, T>()
      .use(eventBridgeIdempotency<OrderPaid, T>({ store, consumer: 'receipts', key: (e) => e.detail.orderNo, logger: false }))
      .handler(async () => {
        effects += 1;
        return result();
      });
  }
  const context = () => lambdaContext({ functionName: 'f', timeoutMs: 10_000, clock });
  return { doc, table, store, clock, build, context, effects: () => effects };
}

describe('results DynamoDB cannot store (claim strategy, storeResult)', () => {
  it('EventBridge: a JSON result with a number out of DynamoDB range (1e200) is recorded once; the retry does not run the effect again', async () => {
    const s = await ebSetup();
    const handler = s.build(() => ({ ratio: 1e200 }));
    const first = await handler(paid('huge-number'), s.context()).then(
      () => 'ok',
      (e: Error) => e.name,
    );
    // The docs: a result that cannot be stored is dropped, the record COMPLETED without it.
    const record = await s.store.get(s.store.recordId('receipts', 'huge-number'));
    // Lambda's async retry, after any lease has passed.
    s.clock.advance(60_000);
    await handler(paid('huge-number'), s.context()).catch(() => undefined);
    expect({ effects: s.effects(), status: record?.status, first }).toMatchObject({ effects: 1, status: 'COMPLETED' });
  });

  it('EventBridge: a JSON result nested deeper than DynamoDB allows (32 levels) is recorded once; the retry does not run the effect again', async () => {
    const s = await ebSetup();
    const deep = (): unknown => {
      let v: unknown = 'leaf';
      for (let i = 0; i < 40; i++) v = { n: v };
      return v;
    };
    const handler = s.build(deep);
    await handler(paid('deep-result'), s.context()).catch(() => undefined);
    const record = await s.store.get(s.store.recordId('receipts', 'deep-result'));
    s.clock.advance(60_000);
    await handler(paid('deep-result'), s.context()).catch(() => undefined);
    expect({ effects: s.effects(), status: record?.status }).toEqual({ effects: 1, status: 'COMPLETED' });
  });

  it('EventBridge: a result holding an integer above 2^53 (1e16) is recorded once; the retry does not run the effect again', async () => {
    const s = await ebSetup();
    const handler = s.build(() => ({ nanos: 1_700_000_000_000_000_000 })); // e.g. a nanosecond timestamp
    const first = await handler(paid('unsafe-int'), s.context()).then(
      () => 'ok',
      (e: Error) => `${e.name}: ${e.message}`,
    );
    const record = await s.store.get(s.store.recordId('receipts', 'unsafe-int'));
    s.clock.advance(60_000);
    await handler(paid('unsafe-int'), s.context()).catch(() => undefined);
    expect({ effects: s.effects(), status: record?.status, first }).toMatchObject({ effects: 1, status: 'COMPLETED' });
  });

  it('SQS claim strategy, storeResult: a result with an unsafe integer is recorded once; the redelivery is acknowledged without running again', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client);
    const clock = new ManualClock(Date.now());
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock });
    let effects = 0;
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, consumer: 'c', storeResult: true, key: (r) => jsonBody<{ orderNo: string }>(r).orderNo, logger: false }))
      .handler(
        eachRecord(async () => {
          effects += 1;
          return { id: 1e16 };
        }),
      );
    const record = () => sqsRecord({ body: JSON.stringify({ orderNo: 'sqs-unsafe' }) });
    await handler(sqsEvent([record()]), lambdaContext({ timeoutMs: 10_000, clock }));
    const stored = await store.get(store.recordId('c', 'sqs-unsafe'));
    clock.advance(60_000);
    const second = await handler(sqsEvent([record()]), lambdaContext({ timeoutMs: 10_000, clock }));
    expect({ effects, status: stored?.status, retried: second.batchItemFailures.length }).toEqual({
      effects: 1,
      status: 'COMPLETED',
      retried: 0,
    });
  });

  it('SQS transaction strategy, storeResult: a result with an unsafe integer still commits the effect (without the result)', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client);
    const points = await freshTable(client, businessTable, 'points');
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table });
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store,
          consumer: 'c',
          strategy: transaction(),
          storeResult: true,
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: false,
        }),
      )
      .handler(
        eachRecord.inTransaction(async (_r, { tx, key }) => {
          tx.put({ TableName: points, Item: { pk: `order#${key}` } });
          return { id: 1e16 };
        }),
      );
    await handler(sqsEvent([sqsRecord({ body: JSON.stringify({ orderNo: 'tx-unsafe' }) })]), lambdaContext());
    // Every redelivery fails the same way: the message can only end in the DLQ with its effect never applied.
    const effect = (await doc.send(new GetCommand({ TableName: points, Key: { pk: 'order#tx-unsafe' } }))).Item;
    const stored = await store.get(store.recordId('c', 'tx-unsafe'));
    expect({ effect: effect !== undefined, status: stored?.status }).toEqual({ effect: true, status: 'COMPLETED' });
  });
});

describe('bigint values in transaction actions', () => {
  it('store.commit: a Put carrying a bigint attribute (valid for the DocumentClient) commits', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client);
    const points = await freshTable(client, businessTable, 'points');
    // The DocumentClient itself is fine with a bigint number.
    await doc.send(new PutCommand({ TableName: points, Item: { pk: 'probe', n: 2n ** 70n } }));
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table });
    const result = await store
      .commit({
        consumer: 'c',
        key: 'k-bigint',
        actions: [{ Put: { TableName: points, Item: { pk: 'ledger#1', balance: 2n ** 70n } } }],
      })
      .then(
        (r) => r.kind,
        (e: Error) => `${e.name}: ${e.message}`,
      );
    expect(result).toBe('committed');
  });
});

describe('transaction strategy (passing tests kept: behaviour without a test before)', () => {
  it('SQS transaction: a refused tx.transition is a BusinessConflictError whose reasons index the handler actions (idempotency item not counted) and decode with transitionFailure', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client);
    const orders = await freshTable(client, businessTable, 'orders');
    const audit = await freshTable(client, businessTable, 'audit');
    await doc.send(new PutCommand({ TableName: orders, Item: { pk: 'o1', status: 'PAID', version: 1 } }));
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table });
    const input: TransitionInput = { tableName: orders, key: { pk: 'o1' }, from: 'PENDING', to: 'PAID' };
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store,
          consumer: 'pay',
          strategy: transaction(),
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: false,
        }),
      )
      .handler(
        eachRecord.inTransaction(async (_r, { tx }) => {
          tx.put({ TableName: audit, Item: { pk: 'a1' } });
          tx.transition(input);
        }),
      );
    const res = await handler(sqsEvent([sqsRecord({ body: JSON.stringify({ orderNo: 'o1' }) })]), lambdaContext());
    expect(res.batchItemFailures).toHaveLength(1);
    // Nothing half applied: neither the audit item nor the idempotency record.
    expect((await doc.send(new GetCommand({ TableName: audit, Key: { pk: 'a1' } }))).Item).toBeUndefined();
    expect(await store.get(store.recordId('pay', 'o1'))).toBeUndefined();
    // The same actions through store.commit, to read the typed error.
    const refused = await store
      .commit({
        consumer: 'pay',
        key: 'o1',
        actions: [{ Put: { TableName: audit, Item: { pk: 'a1' } } }, { Update: { ...transitionActionOf(input) } }],
      })
      .then((r) => r);
    expect(refused.kind).toBe('business-conflict');
    if (refused.kind !== 'business-conflict') return;
    expect(refused.error).toBeInstanceOf(BusinessConflictError);
    expect(refused.error.reasons.map((r) => [r.index, r.code])).toEqual([
      [0, 'None'],
      [1, 'ConditionalCheckFailed'],
    ]);
    const reason = refused.error.reasons[1];
    expect(reason === undefined ? undefined : transitionFailure(reason, input)?.kind).toBe('already');
  });

  it('versionedUpdate: attribute names that look like placeholders, dotted and reserved names are written literally and decode as already on a duplicate', async () => {
    const { client, doc } = testDynamo();
    const t = await freshTable(client, businessTable, 'carts');
    await doc.send(new PutCommand({ TableName: t, Item: { pk: 'c1' } }));
    const set = { '#a1': 1, ':to': 'x', 'a.b': 2, status: 'OPEN', '#version': 'v' };
    const input = { tableName: t, key: { pk: 'c1' }, expectVersion: 0, set };
    expect((await versionedUpdate(doc, input)).kind).toBe('applied');
    const item = (await doc.send(new GetCommand({ TableName: t, Key: { pk: 'c1' } }))).Item;
    expect(item).toEqual({ pk: 'c1', version: 1, ...set });
    expect((await versionedUpdate(doc, input)).kind).toBe('already');
    // The transaction form decodes the same way from a raw (wire-format) reason.
    const err = await doc.send(new TransactWriteCommand({ TransactItems: [{ Update: { ...versionedActionOf(input) } }] })).then(
      () => undefined,
      (e: unknown) => e as { CancellationReasons?: { Code?: string }[] },
    );
    const raw = err?.CancellationReasons?.[0];
    expect(raw === undefined ? undefined : versionedUpdateFailure(raw, input)?.kind).toBe('already');
  });
});

// Local helpers: the public action builders, unwrapped to their Update.
function transitionActionOf(input: TransitionInput) {
  const u = transitionAction(input).Update;
  if (u === undefined) throw new Error('no Update');
  return u;
}
function versionedActionOf(input: VersionedUpdateInput) {
  const u = versionedUpdateAction(input).Update;
  if (u === undefined) throw new Error('no Update');
  return u;
}
