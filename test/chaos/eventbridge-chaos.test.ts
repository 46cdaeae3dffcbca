/**
 * Chaos for an EventBridge consumer under Lambda's async retry semantics
 * (2 retries, then the on-failure destination): re-published events,
 * crashed attempts and transient failures. Points are awarded exactly once
 * per order with the transaction strategy, and results are replayed.
 */
import middy from '@middy/core';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eventBridgeIdempotency, eventBridgeHandler, transaction } from '../../src/index.js';
import { CrashPoint, ManualClock, eventBridgeEvent, flaky } from '../../src/testing/index.js';
import { invokeAsync } from '../../scripts/sim/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; customerId: string; amount: number }>;

describe('chaos: EventBridge async retries with crashes, failures and re-publishes', () => {
  it('awards points once per order; nothing reaches the on-failure destination', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client);
    const points = await freshTable(client, businessTable, 'points');
    const clock = new ManualClock(Date.now());
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock });
    const transient = flaky({ failTimes: 1 });
    const crash = new CrashPoint(2, 2); // hits 3 and 4 die before the commit: two of the three attempts of one event
    const handler = middy<OrderPaid, { awarded: number }>()
      .use(
        eventBridgeIdempotency<OrderPaid, { awarded: number }>({
          store,
          consumer: 'points',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          logger: false,
        }),
      )
      .handler(
        eventBridgeHandler.inTransaction<OrderPaid, { awarded: number }>(async (event, { tx, key }) => {
          if (key.endsWith('3')) transient.hit(key);
          await crash.hit();
          const awarded = Math.floor(event.detail.amount / 10);
          tx.put({ TableName: points, Item: { pk: `ledger#${key}`, awarded }, ConditionExpression: 'attribute_not_exists(pk)' });
          tx.update({
            TableName: points,
            Key: { pk: `customer#${event.detail.customerId}` },
            UpdateExpression: 'ADD points :p',
            ExpressionAttributeValues: { ':p': awarded },
          });
          return { awarded };
        }),
      );
    const failures: unknown[] = [];
    const orders = Array.from({ length: 24 }, (_, i) => ({ orderNo: `o-${i}`, customerId: `c-${i % 4}`, amount: 100 + i * 10 }));
    const deliveries = orders.flatMap((o, i) => (i % 3 === 0 ? [o, o] : [o])); // producer re-publishes: new event ids
    const reports = [];
    for (const detail of deliveries) {
      const event = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail, clock });
      reports.push(
        await invokeAsync({
          handler,
          event,
          clock,
          timeoutMs: 10_000,
          retryDelayMs: () => 60_000,
          onFailure: (r) => void failures.push(r),
        }),
      );
    }
    expect(crash.crashes).toBe(2);
    expect(transient.failures).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    for (const [i, report] of reports.entries()) {
      expect(report.outcome, `delivery ${i}`).toBe('succeeded');
    }
    let total = 0;
    for (const o of orders) total += Math.floor(o.amount / 10);
    let balances = 0;
    for (const c of ['c-0', 'c-1', 'c-2', 'c-3']) {
      const item = await doc.send(new GetCommand({ TableName: points, Key: { pk: `customer#${c}` } }));
      balances += Number(item.Item?.['points'] ?? 0);
    }
    expect(balances).toBe(total);
    const replayed = reports.filter((r) => r.outcome === 'succeeded').map((r) => (r.outcome === 'succeeded' ? r.result.awarded : -1));
    expect(replayed).toEqual(deliveries.map((o) => Math.floor(o.amount / 10)));
  });
});

describe('chaos: EventBridge claim strategy, a crashed attempt leaves its claim', () => {
  it('the retry (after the lease) runs the effect once; re-publishes replay the stored result', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client);
    const clock = new ManualClock(Date.now());
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock });
    const crash = new CrashPoint(2, 1); // the third attempt dies mid-handler, after the claim
    const sent = new Map<string, number>();
    const handler = middy<OrderPaid, string>()
      .use(eventBridgeIdempotency<OrderPaid, string>({ store, consumer: 'mailer', key: (e) => e.detail.orderNo, logger: false }))
      .handler(async (event) => {
        await crash.hit();
        sent.set(event.detail.orderNo, (sent.get(event.detail.orderNo) ?? 0) + 1); // the e-mail
        return `receipt-${event.detail.orderNo}`;
      });
    const failures: unknown[] = [];
    const details = ['a', 'b', 'c', 'd'].map((k) => ({ orderNo: k, customerId: 'c', amount: 10 }));
    const results: string[] = [];
    for (const detail of [...details, ...details]) {
      const event = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail, clock });
      const report = await invokeAsync({
        handler,
        event,
        clock,
        timeoutMs: 10_000,
        retryDelayMs: () => 60_000,
        onFailure: (r) => void failures.push(r),
      });
      if (report.outcome === 'succeeded') results.push(report.result);
    }
    expect(crash.crashes).toBe(1);
    expect(failures).toEqual([]);
    expect([...sent.values()]).toEqual([1, 1, 1, 1]);
    expect(results).toEqual([...details, ...details].map((d) => `receipt-${d.orderNo}`));
  });
});
