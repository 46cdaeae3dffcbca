/**
 * The peer range promises @middy/core 6.x as well as 7.x: the same
 * middlewares run under Middy 6 (installed under an alias).
 */
import middy6 from 'middy-core-6';
import type { EventBridgeEvent, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eachRecord, eventBridgeIdempotency, jsonBody, sqsIdempotency } from '../../src/index.js';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';

async function store() {
  const { client, doc } = testDynamo();
  return new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
}

describe('under @middy/core 6', () => {
  it('sqsIdempotency acknowledges a duplicate and retries a failure', async () => {
    const s = await store();
    let effects = 0;
    const handler = middy6()
      .use(sqsIdempotency({ store: s, consumer: 'm6', key: (r) => jsonBody<{ k: string }>(r).k, logger: false }))
      .handler(
        eachRecord(async (r) => {
          if (jsonBody<{ fail?: boolean }>(r).fail === true) throw new Error('fails');
          effects += 1;
        }),
      );
    const bad = sqsRecord({ body: '{"k":"b","fail":true}' });
    const first = (await handler(sqsEvent([sqsRecord({ body: '{"k":"a"}' }), bad]) as SQSEvent, lambdaContext())) as {
      batchItemFailures: { itemIdentifier: string }[];
    };
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: bad.messageId }]);
    const again = (await handler(sqsEvent([sqsRecord({ body: '{"k":"a"}' })]), lambdaContext())) as { batchItemFailures: unknown[] };
    expect(again.batchItemFailures).toEqual([]);
    expect(effects).toBe(1);
  });

  it('eventBridgeIdempotency replays the stored result, including undefined, through Middy 6 early responses', async () => {
    const s = await store();
    let runs = 0;
    type Ev = EventBridgeEvent<'T', { id: string; value?: number }>;
    const handler = middy6()
      .use(eventBridgeIdempotency<Ev>({ store: s, consumer: 'm6-eb', key: (e) => e.detail.id, logger: false }))
      .handler(async (event: Ev) => {
        runs += 1;
        return event.detail.value;
      });
    const event = (id: string, value?: number): Ev =>
      eventBridgeEvent({ detailType: 'T', source: 's', detail: value === undefined ? { id } : { id, value } });
    expect(await handler(event('x', 5), lambdaContext())).toBe(5);
    expect(await handler(event('x', 5), lambdaContext())).toBe(5);
    expect(await handler(event('u'), lambdaContext())).toBeUndefined();
    expect(await handler(event('u'), lambdaContext())).toBeUndefined();
    expect(runs).toBe(2);
  });
});
