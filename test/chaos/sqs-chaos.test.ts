/**
 * Chaos: a standard queue with duplicate deliveries, producer re-sends,
 * transient failures, crashed invocations and poison messages, drained
 * through the real middleware and store on DynamoDB Local. Every valid order
 * gets its effect exactly once; only the poison ends in the DLQ.
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eachRecord, jsonBody, sqsIdempotency } from '../../src/index.js';
import { CrashPoint, ManualClock, flaky } from '../../src/testing/index.js';
import { SqsQueueSimulator, drain } from '../../scripts/sim/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';

describe('chaos: duplicates, crashes, failures and poison through a simulated SQS queue', () => {
  it('applies each order once and sends only poison to the DLQ', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client);
    const clock = new ManualClock(Date.now());
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock });
    const dlq = new SqsQueueSimulator({ name: 'orders-dlq', clock });
    const queue = new SqsQueueSimulator({ name: 'orders', clock, visibilityTimeoutMs: 60_000, maxReceiveCount: 4, deadLetterQueue: dlq });

    const orders = Array.from({ length: 40 }, (_, i) => `o-${i}`);
    for (const [i, orderNo] of orders.entries()) {
      const body = JSON.stringify({ orderNo, amount: i });
      queue.send(body);
      if (i % 3 === 0) queue.send(body); // a producer re-send: same event, new message id
    }
    const poison = ['{broken', JSON.stringify({ amount: 1 })];
    for (const body of poison) queue.send(body);

    const effects = new Map<string, number>();
    const transient = flaky({ failTimes: 1 }); // each key's first attempt fails once
    const crash = new CrashPoint(7, 2); // the 8th and 9th effects die mid-invocation
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, consumer: 'chaos', key: (r) => jsonBody<{ orderNo?: string }>(r).orderNo, logger: false }))
      .handler(
        eachRecord(
          async (_record, { key }) => {
            if (key.endsWith('5')) transient.hit(key);
            await crash.hit();
            effects.set(key, (effects.get(key) ?? 0) + 1);
          },
          { concurrency: 1 },
        ),
      );

    const report = await drain({ queue, handler, clock, batchSize: 10, timeoutMs: 20_000, concurrency: 2, maxPolls: 500 });

    expect(report.drained).toBe(true);
    expect(crash.crashes).toBe(2);
    expect(transient.failures).toBeGreaterThan(0);
    for (const orderNo of orders) expect(effects.get(orderNo), orderNo).toBe(1);
    expect(effects.size).toBe(orders.length);
    const dead = dlq
      .messages()
      .map((m) => m.body)
      .sort();
    expect(dead).toEqual([...poison].sort());
  });
});
