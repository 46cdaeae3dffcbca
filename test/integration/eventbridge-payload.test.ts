/**
 * The payload check of eventBridgeIdempotency against real DynamoDB Local:
 * across the 0.1.0 upgrade (a record written by 0.1.0 holds a bare SHA-256 of
 * another encoding of `detail`; a redelivery compared with it must not be
 * flagged for the change of hashing alone), and a producer's re-send with a
 * changed envelope field (`sentAt`), narrowed away or flagged as the docs say.
 */
import { createHash } from 'node:crypto';
import middy from '@middy/core';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eventBridgeIdempotency } from '../../src/index.js';
import { eventBridgeEvent, lambdaContext } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; amount: number }>;
type Stamped = EventBridgeEvent<'OrderPaid', { orderNo: string; amount: number; sentAt: string }>;

describe('eventBridgeIdempotency payload check', () => {
  it('a record written by 0.1.0 is not compared: a redelivery replays; a fresh record still flags another detail', async () => {
    const { client, doc } = testDynamo();
    const table = await freshTable(client);
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table });
    let runs = 0;
    const handler = middy<OrderPaid, number>()
      .use(eventBridgeIdempotency<OrderPaid, number>({ store, consumer: 'points', key: (e) => e.detail.orderNo, logger: false }))
      .handler(async (e) => {
        runs += 1;
        return e.detail.amount;
      });
    const paid = (orderNo: string, amount: number): OrderPaid =>
      eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo, amount } });

    expect(await handler(paid('old', 10), lambdaContext())).toBe(10);
    // What 0.1.0 stored: SHA-256 of the detail's JSON with sorted keys, no prefix.
    const legacy = createHash('sha256').update('{"amount":10,"orderNo":"old"}').digest('hex');
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { id: store.recordId('points', 'old') },
        UpdateExpression: 'SET payloadHash = :h',
        ExpressionAttributeValues: { ':h': legacy },
      }),
    );
    expect(await handler(paid('old', 10), lambdaContext())).toBe(10); // replayed, not PayloadMismatchError
    expect(runs).toBe(1);

    expect(await handler(paid('new', 10), lambdaContext())).toBe(10);
    expect((await store.get(store.recordId('points', 'new')))?.payloadHash).toMatch(/^v2:[0-9a-f]{64}$/);
    await expect(handler(paid('new', 11), lambdaContext())).rejects.toMatchObject({ name: 'PayloadMismatchError' });
    expect(runs).toBe(2);
  });

  it('a re-send whose detail differs in sentAt: replayed with payload narrowed; by default a PayloadMismatchError naming the option', async () => {
    const { client, doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    const lines: unknown[] = [];
    let runs = 0;
    const build = (narrow: boolean) =>
      middy<Stamped, number>()
        .use(
          eventBridgeIdempotency<Stamped, number>({
            store,
            consumer: narrow ? 'narrowed' : 'strict',
            key: (e) => e.detail.orderNo,
            logger: (line) => lines.push(line),
            ...(narrow ? { payload: ({ detail: { sentAt: _sentAt, ...fields } }: Stamped) => fields } : {}),
          }),
        )
        .handler(async (e) => {
          runs += 1;
          return e.detail.amount;
        });
    const paid = (sentAt: string): Stamped =>
      eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'o-9', amount: 7, sentAt } });

    const narrowed = build(true);
    expect(await narrowed(paid('2026-12-01T10:00:00Z'), lambdaContext())).toBe(7);
    expect(await narrowed(paid('2026-12-01T10:05:00Z'), lambdaContext())).toBe(7); // replayed
    expect(runs).toBe(1);

    const strict = build(false);
    expect(await strict(paid('2026-12-01T10:00:00Z'), lambdaContext())).toBe(7);
    const refused = strict(paid('2026-12-01T10:05:00Z'), lambdaContext());
    await expect(refused).rejects.toMatchObject({ name: 'PayloadMismatchError' });
    await expect(refused).rejects.toThrow(
      /set the option payload to a function that returns the fields that do; see docs\/options\.md#the-payload-check/,
    );
    expect(runs).toBe(2);
    expect(JSON.stringify(lines.at(-1))).toContain('docs/options.md#the-payload-check');
  });
});
