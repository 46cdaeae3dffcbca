/**
 * One lease-expiry rule (issue 10, item 9): the EventBridge wait path judges
 * a record the way the claim condition does. An IN_PROGRESS record without
 * `leaseUntil` (written by hand or by older code) is in progress for
 * DynamoDB (`leaseUntil <= :now` is false for a missing attribute), so the
 * waiter must not call it claimable and go back to a claim DynamoDB refuses.
 */
import middy from '@middy/core';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/engine/clock.js';
import { DynamoDBIdempotencyStore, IdempotencyInProgressError, eventBridgeIdempotency } from '../../src/index.js';
import { waitForOwner } from '../../src/engine/wait.js';
import { eventBridgeEvent, lambdaContext } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';
import { countRequests } from '../support/store.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;

async function withLeaselessClaim(orderNo: string) {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table });
  const id = store.recordId('waiter', orderNo);
  const record = {
    id,
    status: 'IN_PROGRESS' as const,
    owner: 'someone-else',
    attempts: 1,
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
  };
  await doc.send(new PutCommand({ TableName: table, Item: record }));
  return { doc, store, id, record };
}

describe('waiting on an IN_PROGRESS record without leaseUntil', () => {
  it('waitForOwner: the record stays in progress until the budget is spent (never "claimable")', async () => {
    const { store, id, record } = await withLeaselessClaim('o-wait');
    const waited = await waitForOwner(store, id, record, 150, { maxMs: 150, initialDelayMs: 20, maxDelayMs: 40 }, systemClock);
    expect(waited).toMatchObject({ kind: 'timed-out', record: { status: 'IN_PROGRESS' } });
  });

  it("inProgress: 'wait' throws IdempotencyInProgressError after its wait, with one claim and without running the handler", async () => {
    const { doc, store } = await withLeaselessClaim('o-mw');
    const requests = countRequests(doc);
    let runs = 0;
    const handler = middy<OrderPaid, string>()
      .use(
        eventBridgeIdempotency<OrderPaid, string>({
          store,
          consumer: 'waiter',
          key: (e) => e.detail.orderNo,
          logger: false,
          inProgress: 'wait',
          wait: { maxMs: 1_000, initialDelayMs: 20, maxDelayMs: 40 },
        }),
      )
      .handler(async () => {
        runs += 1;
        return 'ran';
      });
    const event = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'o-mw' } });
    await expect(handler(event, lambdaContext({ functionName: 'waiter', timeoutMs: 30_000 }))).rejects.toBeInstanceOf(
      IdempotencyInProgressError,
    );
    expect(runs).toBe(0);
    // The claim DynamoDB refused is not sent again and again: the wait polls with reads only.
    expect(requests.commands.filter((c) => c === 'PutItemCommand' || c === 'UpdateItemCommand')).toEqual(['PutItemCommand']);
  });
});
