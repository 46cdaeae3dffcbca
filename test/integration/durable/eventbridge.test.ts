/**
 * Issue 24: the EventBridge middleware inside a Lambda durable function
 * (`withDurableExecution(middy handler)`), run by the SDK's local test runner
 * against DynamoDB Local: the middleware sees the `DurableContext`, a replay
 * after the wait resumes the execution's own claim, and another execution
 * with the same event replays the stored result without running.
 */
import middy from '@middy/core';
import { type DurableContext, withDurableExecution } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner } from '@aws/durable-execution-sdk-js-testing';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eventBridgeIdempotency } from '../../../src/index.js';
import { eventBridgeEvent } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;

describe('eventBridgeIdempotency in a durable function (local runner, DynamoDB Local)', () => {
  const { client, doc } = testDynamo();
  let store: DynamoDBIdempotencyStore;
  beforeAll(async () => {
    await LocalDurableTestRunner.setupTestEnvironment({ skipTime: false });
    store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
  });
  afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());

  it('a wait between two steps: each applied once; another execution of the event gets the stored result', async () => {
    const applied: string[] = [];
    let bodyRuns = 0;
    const inner = middy<OrderPaid, { receipt: string }>()
      .use(eventBridgeIdempotency<OrderPaid>({ store, key: (e) => e.detail.orderNo, storeResult: true, logger: false }))
      .handler(async (event, context) => {
        // Inside withDurableExecution the second argument is the DurableContext.
        const ctx = context as unknown as DurableContext;
        bodyRuns += 1;
        const receipt = await ctx.step('charge', async () => {
          applied.push('charge');
          return `r-${event.detail.orderNo}`;
        });
        await ctx.wait({ seconds: 1 });
        await ctx.step('email', async () => {
          applied.push('email');
        });
        return { receipt };
      });
    const handler = withDurableExecution((event: OrderPaid, ctx: DurableContext) => inner(event, ctx as unknown as Context));
    const event = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'o-1' } });

    const first = await new LocalDurableTestRunner({ handlerFunction: handler }).run({ payload: event });
    expect(first.getStatus()).toBe('SUCCEEDED');
    expect(first.getResult()).toEqual({ receipt: 'r-o-1' });
    expect(bodyRuns).toBeGreaterThanOrEqual(2);
    const runs = bodyRuns;

    const second = await new LocalDurableTestRunner({ handlerFunction: handler }).run({ payload: event });
    expect(second.getStatus()).toBe('SUCCEEDED');
    expect(second.getResult()).toEqual({ receipt: 'r-o-1' });
    expect(bodyRuns).toBe(runs);
    expect(applied).toEqual(['charge', 'email']);
    // The consumer defaults to the function name, read from the Lambda context the DurableContext holds.
    const record = await store.get(store.recordId('my-function-name', 'o-1'));
    expect(record).toMatchObject({ status: 'COMPLETED', attempts: 1 });
  }, 30_000);
});
