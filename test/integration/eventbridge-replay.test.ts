/**
 * eventBridgeIdempotency's `onReplay` against DynamoDB Local: a duplicate
 * answered from the stored result (claim replay, `inProgress: 'wait'`, and
 * eventBridgeHandler's transaction-strategy duplicate) goes through the hook, whose
 * return value is what the caller gets; a first run never does. Also: a
 * body failing its schema in the handler is logged invalid, not failed.
 */
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eventBridgeIdempotency, eventBridgeHandler, transaction } from '../../src/index.js';
import { SchemaValidationError } from '../../src/engine/errors.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import { Deferred, eventBridgeEvent, lambdaContext } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;
interface Receipt {
  readonly receipt: string;
  readonly replayed?: string;
}

async function setup() {
  const { client, doc } = testDynamo();
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
  const paid = (orderNo: string): OrderPaid => eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo } });
  const context = () => lambdaContext({ functionName: 'replay-fn', timeoutMs: 30_000 });
  const seen: Array<{ result: Receipt; id: string }> = [];
  // Marks a replayed response with the id of the event it answers.
  const onReplay = async (result: Receipt, event: OrderPaid): Promise<Receipt> => {
    seen.push({ result, id: event.id });
    return { ...result, replayed: event.id };
  };
  return { store, paid, context, seen, onReplay };
}

describe('eventBridgeIdempotency onReplay', () => {
  it('claim strategy: a duplicate returns what onReplay makes of the stored result; the first run does not call it', async () => {
    const s = await setup();
    let runs = 0;
    const handler = middy<OrderPaid, Receipt>()
      .use(
        eventBridgeIdempotency<OrderPaid, Receipt>({
          store: s.store,
          consumer: 'mailer',
          key: (e) => e.detail.orderNo,
          logger: false,
          onReplay: s.onReplay,
        }),
      )
      .handler(async () => {
        runs += 1;
        return { receipt: 'r-1' };
      });
    expect(await handler(s.paid('o-1'), s.context())).toEqual({ receipt: 'r-1' });
    expect(s.seen).toEqual([]);
    const again = s.paid('o-1');
    expect(await handler(again, s.context())).toEqual({ receipt: 'r-1', replayed: again.id });
    expect(s.seen).toEqual([{ result: { receipt: 'r-1' }, id: again.id }]);
    expect(runs).toBe(1);
  });

  it('inProgress "wait": the waiting duplicate returns what onReplay makes of the first result', async () => {
    const s = await setup();
    const hold = new Deferred();
    const started = new Deferred();
    const handler = middy<OrderPaid, Receipt>()
      .use(
        eventBridgeIdempotency<OrderPaid, Receipt>({
          store: s.store,
          consumer: 'mailer',
          key: (e) => e.detail.orderNo,
          logger: false,
          inProgress: 'wait',
          wait: { initialDelayMs: 20, maxDelayMs: 50 },
          onReplay: (result) => ({ ...result, replayed: 'waited' }),
        }),
      )
      .handler(async () => {
        started.resolve();
        await hold.promise;
        return { receipt: 'r-w' };
      });
    const first = handler(s.paid('o-w'), s.context());
    await started.promise;
    const second = handler(s.paid('o-w'), s.context());
    hold.resolve();
    expect(await first).toEqual({ receipt: 'r-w' });
    expect(await second).toEqual({ receipt: 'r-w', replayed: 'waited' });
  });

  it('transaction strategy: eventBridgeHandler returns what onReplay makes of the stored result for a duplicate', async () => {
    const s = await setup();
    let runs = 0;
    const handler = middy<OrderPaid, Receipt>()
      .use(
        eventBridgeIdempotency<OrderPaid, Receipt>({
          store: s.store,
          consumer: 'mailer-tx',
          strategy: transaction(),
          key: (e) => e.detail.orderNo,
          logger: false,
          onReplay: s.onReplay,
        }),
      )
      .handler(
        eventBridgeHandler<OrderPaid, Receipt>(async () => {
          runs += 1;
          return { receipt: 'r-tx' };
        }),
      );
    expect(await handler(s.paid('o-tx'), s.context())).toEqual({ receipt: 'r-tx' });
    expect(s.seen).toEqual([]);
    const again = s.paid('o-tx');
    expect(await handler(again, s.context())).toEqual({ receipt: 'r-tx', replayed: again.id });
    expect(s.seen).toEqual([{ result: { receipt: 'r-tx' }, id: again.id }]);
    expect(runs).toBe(2); // the handler builds its writes; the commit finds the duplicate
  });

  it('onReplay must be a function (checked at build time)', async () => {
    const s = await setup();
    const build = () => eventBridgeIdempotency({ store: s.store, key: () => 'k', onReplay: 'mark' as unknown as () => undefined });
    expect(build).toThrow(TypeError);
    expect(build).toThrow(/option "onReplay" must be a function/);
  });
});

describe('eventBridgeIdempotency and an invalid record thrown by the handler', () => {
  it('is rethrown, its claim released, and logged invalid (not failed)', async () => {
    const s = await setup();
    const lines: BatchLogLine[] = [];
    const invalid = new SchemaValidationError('Event: detail.orderNo: expected a number', [{ message: 'expected a number' }]);
    const handler = middy<OrderPaid, Receipt>()
      .use(
        eventBridgeIdempotency<OrderPaid, Receipt>({
          store: s.store,
          consumer: 'v',
          key: (e) => e.detail.orderNo,
          logger: (l) => lines.push(l),
        }),
      )
      .handler(async () => {
        throw invalid;
      });
    await expect(handler(s.paid('o-bad'), s.context())).rejects.toBe(invalid);
    expect(lines.at(-1)?.records[0]).toMatchObject({ outcome: 'invalid', error: { name: 'SchemaValidationError' } });
    expect(await s.store.get(s.store.recordId('v', 'o-bad'))).toBeUndefined();
  });
});
