/**
 * `tracing: openTelemetry()` on DynamoDB Local (the OTel SDK's in-memory exporter): the claim strategy with
 * `hashKeys` (the span's key hash is the one in the stored record id), the transaction strategy on SQS (effect then
 * commit; a duplicate found at the commit; a failed handler; a business conflict) and on EventBridge through
 * `eventBridgeHandler`. The same trees on MemoryIdempotencyStore: test/unit/observe/tracing-*.test.ts.
 */
import { createHash } from 'node:crypto';
import middy from '@middy/core';
import { SpanStatusCode } from '@opentelemetry/api';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { TransactionRecordHandler } from '../../src/batch/runner-link.js';
import { DynamoDBIdempotencyStore, eventBridgeHandler, eventBridgeIdempotency, transaction } from '../../src/index.js';
import { eventBridgeEvent, lambdaContext, sqsEvent } from '../../src/testing/index.js';
import { openTelemetry } from '../../src/tracing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';
import { everyAttribute, spanTree } from '../support/tracing.js';
import { failedIds, harness, order } from './sqs/harness.js';

const tree = spanTree();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const tracing = () => openTelemetry({ tracer: tree.tracer });

describe('tracing on DynamoDB Local', () => {
  it('claim strategy with hashKeys: the record span carries the hash in the stored record id, never the key', async () => {
    const h = await harness({ hashKeys: true });
    const handler = h.handler(undefined, { tracing: tracing() });
    const first = order('order-4711');
    await handler(sqsEvent([first]), h.context());
    const record = tree.recordSpan(first.messageId);
    expect(tree.childrenOf(record)).toEqual(['claim', 'complete', 'effect']);
    const id = h.store.recordId('test', 'order-4711');
    expect((await h.store.get(id))?.status).toBe('COMPLETED');
    expect(id).toBe(`test#${record.attributes['effectively_once.key.sha256']}`);
    expect(record.attributes['effectively_once.key.sha256']).toBe(sha256('order-4711'));
    // A duplicate, found by the real conditional write.
    tree.clear();
    const again = order('order-4711');
    await handler(sqsEvent([again]), h.context());
    expect(tree.recordSpan(again.messageId).attributes['effectively_once.outcome']).toBe('duplicate');
    expect(tree.named('claim')[0]?.attributes['effectively_once.result']).toBe('completed');
    expect(everyAttribute(tree.spans()).some((v) => v.includes('order-4711'))).toBe(false);
  });

  it('transaction strategy on SQS: effect then commit; a duplicate, a failure and a business conflict', async () => {
    const h = await harness();
    const { client } = testDynamo();
    const business = await freshTable(client, businessTable, 'biz');
    const award: TransactionRecordHandler = (record, { key, tx }) => {
      if (record.body.includes('"fail"')) throw new Error('no points today');
      tx.put({
        TableName: business,
        Item: { pk: `ledger#${record.body.includes('"clash"') ? 'shared' : key}` },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    };
    const handler = h.txHandler(award, { tracing: tracing() });
    const fresh = order('t-1');
    await handler(sqsEvent([fresh, order('t-0', { clash: true })]), h.context());
    const record = tree.recordSpan(fresh.messageId);
    expect(tree.childrenOf(record)).toEqual(['commit', 'effect']);
    expect(record.attributes).toMatchObject({ 'effectively_once.strategy': 'transaction', 'effectively_once.outcome': 'completed' });
    expect(tree.parentOf(record)?.attributes['effectively_once.strategy']).toBe('transaction');
    tree.clear();
    const [duplicate, failing, clash] = [order('t-1'), order('t-2', { fail: true }), order('t-3', { clash: true })];
    const response = await handler(sqsEvent([duplicate, failing, clash]), h.context());
    expect(failedIds(response)).toEqual([failing.messageId, clash.messageId]);
    expect(tree.recordSpan(duplicate.messageId).attributes['effectively_once.outcome']).toBe('duplicate');
    // A handler that threw commits nothing: its effect failed, no commit span.
    const failed = tree.recordSpan(failing.messageId);
    expect(tree.childrenOf(failed)).toEqual(['effect']);
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    // The business condition failed at the commit: the commit span and the record span say so.
    const conflict = tree.recordSpan(clash.messageId);
    expect(conflict.attributes['effectively_once.outcome']).toBe('conflict');
    expect(conflict.attributes['error.type']).toBe('BusinessConflictError');
    const [commit] = tree.named('commit').filter((s) => tree.parentOf(s) === conflict);
    expect(commit?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('transaction strategy on EventBridge: the event span with effect and commit, under eventBridgeHandler', async () => {
    const { client, doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    type Paid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;
    const handler = middy<Paid, unknown>()
      .use(
        eventBridgeIdempotency<Paid>({
          store,
          consumer: 'points',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          logger: false,
          tracing: tracing(),
        }),
      )
      .handler(eventBridgeHandler<Paid, unknown>(async () => ({ awarded: true })));
    const paid = (id: string) => eventBridgeEvent({ id, detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'o-1' } });
    await handler(paid('e-1'), lambdaContext({ functionName: 'points-fn' }));
    const event = tree.recordSpan('e-1', 'event');
    expect(tree.childrenOf(event)).toEqual(['commit', 'effect']);
    expect(event.attributes['effectively_once.outcome']).toBe('completed');
    tree.clear();
    expect(await handler(paid('e-2'), lambdaContext({ functionName: 'points-fn' }))).toEqual({ awarded: true });
    expect(tree.recordSpan('e-2', 'event').attributes['effectively_once.outcome']).toBe('duplicate');
  });
});
