/**
 * The switch from Powertools 2.35.0's makeHandlerIdempotent (Middy) to eventBridgeIdempotency with
 * `previous: powertoolsRecords(...)`, on DynamoDB Local: Powertools' real middleware handles some events (completing
 * them, dying in one); ours then gets the same events again, claim strategy and transaction strategy. Each effect is
 * applied once, and an event Powertools completed answers with the result Powertools stored.
 */
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  eventBridgeHandler,
  eventBridgeIdempotency,
  IdempotencyInProgressError,
  transaction,
} from '../../../src/index.js';
import { powertoolsKey, powertoolsRecords } from '../../../src/powertools/index.js';
import { abandon, eventBridgeEvent, invoke, lambdaContext } from '../../../src/testing/index.js';
import { cutoverRig, type CutoverRig } from './rig.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;
interface Sent {
  readonly sent: string;
  readonly by: string;
}

const WINDOW_MS = 2 * 60 * 60_000;
const PREFIX = 'mailer';

const paid = (orderNo: string): OrderPaid =>
  eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo } }) as OrderPaid;

/** The function before the switch: makeHandlerIdempotent keyed on detail.orderNo, with a key prefix of its own. */
function powertoolsHandler(rig: CutoverRig, dies: ReadonlySet<string> = new Set()) {
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: rig.powertoolsTable, awsSdkV3Client: rig.client });
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'detail.orderNo' });
  return middy<OrderPaid, Sent>()
    .use(makeHandlerIdempotent({ persistenceStore, config, keyPrefix: PREFIX }))
    .handler(async (event) => {
      if (dies.has(event.detail.orderNo)) await abandon('the Lambda dies before the effect');
      await rig.effect(event.detail.orderNo);
      return { sent: event.detail.orderNo, by: 'powertools' };
    });
}

function previousOf(rig: CutoverRig) {
  const until = new Date(rig.clock.now() + WINDOW_MS);
  const key = (e: OrderPaid) => e.detail.orderNo;
  return powertoolsRecords({ client: rig.previousDoc, tableName: rig.powertoolsTable, keyPrefix: PREFIX, key, until, clock: rig.clock });
}

const context = (rig: CutoverRig) => lambdaContext({ clock: rig.clock, timeoutMs: 30_000 });

describe('switching an EventBridge consumer from makeHandlerIdempotent', () => {
  it('claim strategy: replays what Powertools completed, waits out what it holds, runs the rest once', async () => {
    const rig = await cutoverRig();
    const [e1, e2, e3] = [paid('e1'), paid('e2'), paid('e3')];
    const powertools = powertoolsHandler(rig, new Set(['e2']));
    const done = await invoke(powertools, e1, { timeoutMs: 30_000 });
    expect(done.kind === 'returned' && done.value).toEqual({ sent: 'e1', by: 'powertools' });
    expect((await invoke(powertools, e2, { timeoutMs: 30_000 })).kind).toBe('crashed');

    const store = new DynamoDBIdempotencyStore({ client: rig.doc, tableName: rig.oursTable, clock: rig.clock });
    const ours = middy<OrderPaid, Sent>()
      .use(eventBridgeIdempotency<OrderPaid, Sent>({ store, consumer: 'mailer', key: (e) => e.detail.orderNo, previous: previousOf(rig) }))
      .handler(async (event) => {
        await rig.effect(event.detail.orderNo);
        return { sent: event.detail.orderNo, by: 'ours' };
      });
    // Lambda's async retry delivers e1 again: Powertools' stored result, and our record keeps it.
    expect(await ours(e1, context(rig))).toEqual({ sent: 'e1', by: 'powertools' });
    expect((await store.get(store.recordId('mailer', 'e1')))?.result).toEqual({ sent: 'e1', by: 'powertools' });
    // e2: Powertools' dead invocation still holds it; once its in_progress_expiration passes, ours runs it once.
    await expect(ours(e2, context(rig))).rejects.toBeInstanceOf(IdempotencyInProgressError);
    const held = await rig.powertoolsItem(powertoolsKey(PREFIX, 'e2'));
    expect(held?.['status']).toBe('INPROGRESS');
    rig.clock.advanceTo((held?.['in_progress_expiration'] as number) + 1);
    expect(await ours(e2, context(rig))).toEqual({ sent: 'e2', by: 'ours' });
    expect(await ours(e3, context(rig))).toEqual({ sent: 'e3', by: 'ours' });
    // Every one a duplicate of ours now, replayed from our records.
    for (const e of [e1, e2, e3]) await ours(e, context(rig));
    expect(await rig.effects()).toEqual({ e1: 1, e2: 1, e3: 1 });
  });

  it('transaction strategy (eventBridgeHandler.inTransaction): Powertools’ completion becomes our record, before and after the window', async () => {
    const rig = await cutoverRig();
    const e1 = paid('t1');
    const done = await invoke(powertoolsHandler(rig), e1, { timeoutMs: 30_000 });
    expect(done.kind).toBe('returned');

    const store = new DynamoDBIdempotencyStore({ client: rig.doc, tableName: rig.oursTable, clock: rig.clock });
    const ours = middy<OrderPaid, Sent>()
      .use(
        eventBridgeIdempotency<OrderPaid, Sent>({
          store,
          consumer: 'mailer',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          previous: previousOf(rig),
        }),
      )
      .handler(
        eventBridgeHandler.inTransaction<OrderPaid, Sent>(async (event, { tx }) => {
          const add = { TableName: rig.effectsTable, Key: { pk: event.detail.orderNo }, UpdateExpression: 'ADD n :one' };
          tx.update({ ...add, ExpressionAttributeValues: { ':one': 1 } });
          return { sent: event.detail.orderNo, by: 'ours' };
        }),
      );
    expect(await ours(e1, context(rig))).toEqual({ sent: 't1', by: 'powertools' });
    rig.clock.advance(WINDOW_MS);
    const reads = rig.powertoolsReads();
    expect(await ours(e1, context(rig))).toEqual({ sent: 't1', by: 'powertools' });
    expect(rig.powertoolsReads()).toBe(reads);
    expect(await ours(paid('t2'), context(rig))).toEqual({ sent: 't2', by: 'ours' });
    expect(await rig.effects()).toEqual({ t1: 1, t2: 1 });
  });
});
