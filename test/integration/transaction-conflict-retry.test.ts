/**
 * A transaction cancelled by contention (TransactionConflict) is committed
 * again within the invocation, against DynamoDB Local with injected faults
 * (issue 10, item 10): nothing was written by the cancelled attempt, so only
 * the commit of the same `tx` items is repeated, never the handler, a
 * bounded number of times, and never past the safety margin.
 */
import middy from '@middy/core';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { TransactionRetryableError, eventBridgeIdempotency, eventBridgeHandler, transaction } from '../../src/index.js';
import type { TransactionRecordHandler } from '../../src/batch/runner-link.js';
import { eventBridgeEvent, injectDynamoDBFaults, lambdaContext, sqsEvent } from '../../src/testing/index.js';
import type { DynamoDBFaultRule } from '../../src/testing/dynamodb-faults.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';
import { failedIds, harness, order } from './sqs/harness.js';

const conflicts = (rule: { calls: number[] } | { probability: number }): DynamoDBFaultRule => ({
  fault: 'transaction-conflict',
  commands: ['TransactWriteItems'],
  ...rule,
});

async function setup() {
  const h = await harness();
  const { client, doc } = testDynamo();
  const business = await freshTable(client, businessTable, 'biz');
  let runs = 0;
  const award: TransactionRecordHandler = (_r, { tx }) => {
    runs += 1;
    tx.update({
      TableName: business,
      Key: { pk: 'customer#c1' },
      UpdateExpression: 'ADD points :p',
      ExpressionAttributeValues: { ':p': 10 },
    });
  };
  const balance = async () =>
    (await doc.send(new GetCommand({ TableName: business, Key: { pk: 'customer#c1' }, ConsistentRead: true }))).Item?.['points'];
  return { h, business, award, balance, runs: () => runs };
}

describe('SQS, transaction strategy: TransactionConflict', () => {
  it('a record whose first two commits hit TransactionConflict completes in one invocation, its write applied once, its handler run once', async () => {
    const { h, award, balance, runs } = await setup();
    const faults = injectDynamoDBFaults(h.doc, { rules: [conflicts({ calls: [1, 2] })] });
    const handler = h.txHandler(award, { strategy: transaction() });
    expect(failedIds(await handler(sqsEvent([order('tc-1')]), h.context()))).toEqual([]);
    expect(faults.injected()['transaction-conflict']).toBe(2);
    expect(runs()).toBe(1);
    expect(await balance()).toBe(10);
    expect((await h.store.get(h.store.recordId('test', 'tc-1')))?.status).toBe('COMPLETED');
    expect(h.lines.at(-1)?.counts.completed).toBe(1);
  });

  it('persistent conflicts: reported failed after 3 commits, nothing written, the handler run once', async () => {
    const { h, award, balance, runs } = await setup();
    const faults = injectDynamoDBFaults(h.doc, { rules: [conflicts({ probability: 1 })] });
    const handler = h.txHandler(award, { strategy: transaction() });
    const record = order('tc-2');
    expect(failedIds(await handler(sqsEvent([record]), h.context()))).toEqual([record.messageId]);
    expect(faults.injected()['transaction-conflict']).toBe(3);
    expect(runs()).toBe(1);
    expect(await balance()).toBeUndefined();
    expect(await h.store.get(h.store.recordId('test', 'tc-2'))).toBeUndefined();
    expect(h.lines.at(-1)?.records[0]).toMatchObject({ outcome: 'failed', error: { name: 'TransactionRetryableError' } });
  });

  it('never retries into the safety margin: a conflict met with less time left than the margin is reported at once', async () => {
    const { h, business, balance } = await setup();
    const faults = injectDynamoDBFaults(h.doc, { rules: [conflicts({ calls: [1] })] });
    const slow: TransactionRecordHandler = (_r, { tx }) => {
      h.clock.advance(57_000); // the handler used the time: 3 s left of 60, under the 5 s margin
      tx.update({
        TableName: business,
        Key: { pk: 'customer#c1' },
        UpdateExpression: 'ADD points :p',
        ExpressionAttributeValues: { ':p': 10 },
      });
    };
    const handler = h.txHandler(slow, { strategy: transaction(), safetyMarginMs: 5_000 });
    const record = order('tc-3');
    expect(failedIds(await handler(sqsEvent([record]), h.context(60_000)))).toEqual([record.messageId]);
    expect(faults.injected()['transaction-conflict']).toBe(1);
    expect(await balance()).toBeUndefined();
  });
});

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;

describe('EventBridge, eventBridgeHandler: TransactionConflict', () => {
  async function eventSetup() {
    const { h, business, balance } = await setup();
    let runs = 0;
    const handler = middy<OrderPaid, { points: number }>()
      .use(
        eventBridgeIdempotency<OrderPaid>({
          store: h.store,
          consumer: 'points',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          logger: false,
        }),
      )
      .handler(
        eventBridgeHandler.inTransaction<OrderPaid, { points: number }>(async (_event, { tx }) => {
          runs += 1;
          tx.update({
            TableName: business,
            Key: { pk: 'customer#c1' },
            UpdateExpression: 'ADD points :p',
            ExpressionAttributeValues: { ':p': 10 },
          });
          return { points: 10 };
        }),
      );
    const paid = (orderNo: string): OrderPaid => eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo } });
    const context = () => lambdaContext({ functionName: 'points', timeoutMs: 30_000 });
    return { h, handler, paid, context, balance, runs: () => runs };
  }

  it('two conflicts, then the commit lands: the event is handled in one invocation, once', async () => {
    const s = await eventSetup();
    const faults = injectDynamoDBFaults(s.h.doc, { rules: [conflicts({ calls: [1, 2] })] });
    expect(await s.handler(s.paid('ev-1'), s.context())).toEqual({ points: 10 });
    expect(faults.injected()['transaction-conflict']).toBe(2);
    expect(s.runs()).toBe(1);
    expect(await s.balance()).toBe(10);
  });

  it('persistent conflicts: TransactionRetryableError after 3 commits, nothing written', async () => {
    const s = await eventSetup();
    const faults = injectDynamoDBFaults(s.h.doc, { rules: [conflicts({ probability: 1 })] });
    await expect(s.handler(s.paid('ev-2'), s.context())).rejects.toBeInstanceOf(TransactionRetryableError);
    expect(faults.injected()['transaction-conflict']).toBe(3);
    expect(s.runs()).toBe(1);
    expect(await s.balance()).toBeUndefined();
  });
});
