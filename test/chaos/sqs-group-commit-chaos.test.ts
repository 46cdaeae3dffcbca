/**
 * Chaos for group commit (issue 12, item 1): a standard queue drained by two
 * pollers at once (racing invocations), producer re-sends, injected DynamoDB
 * faults (TransactionConflict, throttling, network errors before and after
 * the write), crashes before and after a group commit, through the real
 * middleware with `strategy: 'transaction'` and group commit on, against
 * DynamoDB Local. Records share balance items, so groups are split by
 * overlapping keys. Invariants, from the end state: every order applied
 * exactly once (balance = sum of its ledger lines), nothing acknowledged
 * while its effect is missing, no batch failed as a whole; and the faults
 * that matter fired: conflicts on group commits, groups cancelled by one
 * record's condition.
 */
import middy from '@middy/core';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eachRecord, jsonBody, sqsIdempotency } from '../../src/index.js';
import { crashingStore, drain, injectDynamoDBFaults, ManualClock, SqsQueueSimulator } from '../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';

const ORDERS = 80;
const CUSTOMERS = 7;
const customerOf = (i: number) => `c${i % CUSTOMERS}`;

/** Counts group commits (several idempotency Puts in one request) cancelled by a failed condition of one record. */
function watchGroups(doc: ReturnType<typeof testDynamo>['doc'], idempotencyTable: string) {
  const seen = { groups: 0, cancelledByCondition: 0 };
  doc.middlewareStack.add(
    (next) => async (args) => {
      const items = (args.input as { TransactItems?: Array<{ Put?: { TableName?: string } }> }).TransactItems ?? [];
      const records = items.filter((a) => a.Put?.TableName === idempotencyTable).length;
      if (records > 1) seen.groups += 1;
      try {
        return await next(args);
      } catch (err) {
        const reasons = (err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
        if (records > 1 && reasons.some((r) => r.Code === 'ConditionalCheckFailed')) seen.cancelledByCondition += 1;
        throw err;
      }
    },
    { step: 'initialize', name: 'watchGroups' },
  );
  return seen;
}

describe('chaos: group commit under faults, crashes and racing invocations', () => {
  it('applies each order exactly once, acknowledges nothing without its effect, and the conflict and cancellation faults fire', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client);
    const business = await freshTable(client, businessTable, 'biz');
    const clock = new ManualClock(Date.now());
    const seen = watchGroups(doc, table);
    const faults = injectDynamoDBFaults(doc, {
      seed: 12,
      rules: [
        { fault: 'transaction-conflict', probability: 0.15, commands: ['TransactWriteItems'] },
        { fault: 'throttle', probability: 0.05 },
        { fault: 'network-before', probability: 0.03, commands: ['TransactWriteItems'] },
        { fault: 'network-after', probability: 0.05, commands: ['TransactWriteItems'] },
      ],
    });
    const base = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock, cache: false });
    const store = crashingStore(base, { seed: 12, probability: { 'before-complete': 0.04, 'after-complete': 0.04 } });
    const dlq = new SqsQueueSimulator({ name: 'gc-dlq', clock });
    const queue = new SqsQueueSimulator({ name: 'gc', clock, visibilityTimeoutMs: 60_000, maxReceiveCount: 6, deadLetterQueue: dlq });
    const amountOf = (i: number) => i + 1;
    for (let i = 0; i < ORDERS; i++) {
      const body = JSON.stringify({ orderNo: `o-${i}`, customer: customerOf(i), amount: amountOf(i) });
      queue.send(body);
      if (i % 4 === 0) queue.send(body); // a producer re-send: same event, new message id
    }

    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store,
          consumer: 'gc',
          strategy: 'transaction',
          key: (r) => jsonBody<{ orderNo?: string }>(r).orderNo,
          logger: false,
        }),
      )
      .handler(
        eachRecord(async (record, { key, tx }) => {
          const { customer, amount } = jsonBody<{ customer: string; amount: number }>(record);
          tx.put({ TableName: business, Item: { pk: `ledger#${key}`, customer, amount }, ConditionExpression: 'attribute_not_exists(pk)' });
          tx.update({
            TableName: business,
            Key: { pk: `balance#${customer}` },
            UpdateExpression: 'ADD amount :a',
            ExpressionAttributeValues: { ':a': amount },
          });
        }),
      );

    const get = async (pk: string) =>
      (await doc.send(new GetCommand({ TableName: business, Key: { pk }, ConsistentRead: true }))).Item as
        | Record<string, unknown>
        | undefined;
    const bodies = new Map<string, string>();
    const ackChecks: Array<Promise<string | undefined>> = [];
    let wholeBatchFailures = 0;
    const report = await drain({
      queue,
      handler,
      clock,
      batchSize: 10,
      timeoutMs: 20_000,
      concurrency: 2,
      maxPolls: 2000,
      onPoll: (poll) => {
        if (poll.outcome === 'threw' || poll.outcome === 'invalid-response') wholeBatchFailures += 1;
        for (const id of poll.deleted) {
          const body = bodies.get(id) ?? queue.messages().find((m) => m.messageId === id)?.body;
          const key = body === undefined ? undefined : (JSON.parse(body) as { orderNo: string }).orderNo;
          // Read at once: a deleted message's order must already have its ledger line.
          if (key !== undefined) ackChecks.push(get(`ledger#${key}`).then((item) => (item === undefined ? key : undefined)));
        }
      },
    });

    expect(report.drained).toBe(true);
    expect(wholeBatchFailures).toBe(0);
    expect((await Promise.all(ackChecks)).filter((k) => k !== undefined)).toEqual([]);
    const dead = new Set(dlq.messages().map((m) => (JSON.parse(m.body) as { orderNo: string }).orderNo));
    const expected = new Map<string, number>();
    for (let i = 0; i < ORDERS; i++) {
      const ledger = await get(`ledger#o-${i}`);
      if (ledger === undefined) expect(dead.has(`o-${i}`), `o-${i} neither applied nor dead-lettered`).toBe(true);
      else expected.set(customerOf(i), (expected.get(customerOf(i)) ?? 0) + amountOf(i));
    }
    // Zero double effects: each balance is exactly the sum of its ledger lines.
    for (const [customer, sum] of expected) expect((await get(`balance#${customer}`))?.['amount'], customer).toBe(sum);
    // The faults that matter fired during group commits.
    expect(seen.groups).toBeGreaterThan(0);
    expect(seen.cancelledByCondition).toBeGreaterThan(0);
    expect(faults.injected()['transaction-conflict']).toBeGreaterThan(0);
    expect(store.crashes.length).toBeGreaterThan(0);
    expect(dead.size).toBeLessThanOrEqual(2);
  });
});
