/**
 * Bad input sweep (issue #5), EventBridge side, against DynamoDB Local and
 * both strategies. One event is one invocation, so "fails alone" means: a
 * typed error is thrown before the handler runs and before anything is
 * written (Lambda's async retry, then the on-failure destination or DLQ,
 * takes it), and other events are unaffected.
 */
import middy from '@middy/core';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eventBridgeIdempotency, eventBridgeHandler } from '../../src/index.js';
import { MissingKeyError } from '../../src/engine/errors.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import type { Strategy } from '../../src/batch/options.js';
import { eventBridgeEvent, lambdaContext } from '../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';
import { strategyOf } from '../support/strategy.js';

type Paid = EventBridgeEvent<'OrderPaid', { orderNo?: unknown; blob?: string }>;

async function rig(strategy: Strategy, hashKeys = false) {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  // The transaction strategy must commit something of its own: a business table proves the effect is written once.
  const business = await freshTable(client, businessTable, 'biz');
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, hashKeys });
  const lines: BatchLogLine[] = [];
  const runs: string[] = [];
  const handler = middy<Paid, string>()
    .use(
      eventBridgeIdempotency<Paid>({
        store,
        consumer: 'sweep',
        strategy: strategyOf(strategy),
        key: (e) => e.detail.orderNo as string,
        logger: (l) => lines.push(l),
      }),
    )
    .handler(
      strategy === 'transaction'
        ? eventBridgeHandler.inTransaction<Paid, string>(async (event, { key, tx }) => {
            runs.push(key);
            tx.put({ TableName: business, Item: { pk: `n#${runs.length}` } });
            return event.detail.blob ?? `done ${runs.length}`;
          })
        : eventBridgeHandler<Paid, string>(async (event, { key }) => {
            runs.push(key);
            return event.detail.blob ?? `done ${runs.length}`;
          }),
    );
  const invoke = (event: unknown) => handler(event as Paid, lambdaContext({ functionName: 'sweep-fn', timeoutMs: 30_000 }));
  const count = async (name: string) => (await doc.send(new ScanCommand({ TableName: name, Select: 'COUNT' }))).Count ?? -1;
  // Effects applied: handler runs (claim), committed business writes (transaction: a duplicate runs the handler, its commit is refused).
  const effects = async () => (strategy === 'claim' ? runs.length : count(business));
  return { store, lines, runs, invoke, items: () => count(table), effects };
}

const paid = (orderNo: unknown, blob?: string): Paid =>
  eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: blob === undefined ? { orderNo } : { orderNo, blob } });

describe.each<Strategy>(['claim', 'transaction'])('bad input sweep, eventBridgeIdempotency, %s strategy', (strategy) => {
  const notEventBridge: Array<[string, unknown]> = [
    ['null', null],
    ['an empty object', {}],
    ['an SQS event', { Records: [{ messageId: 'm-1', body: '{}', eventSource: 'aws:sqs' }] }],
    ['no detail', { id: 'e-1', 'detail-type': 'OrderPaid', source: 'shop' }],
    ['no detail-type', { id: 'e-1', source: 'shop', detail: { orderNo: 'o-1' } }],
  ];
  it.each(notEventBridge)('%s: a TypeError naming the middleware, the handler not run, nothing written', async (_name, event) => {
    const s = await rig(strategy);
    const error = await s.invoke(event).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^eventBridgeIdempotency: the event is not an EventBridge event/);
    expect(s.runs).toEqual([]);
    expect(await s.items()).toBe(0);
  });

  const badKeys: Array<[string, unknown]> = [
    ['no key', undefined],
    ['an empty key', ''],
    ['an object key', { nested: 1 }],
    ['a lone surrogate', 'x\ud800'],
    ['a key over 1024 bytes (no hashKeys)', '😀'.repeat(600)],
  ];
  it.each(badKeys)(
    '%s: MissingKeyError (KeyTooLongError for a long key) before the handler runs; the next event is processed',
    async (name, orderNo) => {
      const s = await rig(strategy);
      const expected = name.startsWith('a key over') ? 'KeyTooLongError' : 'MissingKeyError';
      const error: unknown = await s.invoke(paid(orderNo)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(MissingKeyError);
      expect(error).toMatchObject({ name: expected });
      expect(s.runs).toEqual([]);
      expect(await s.items()).toBe(0);
      expect(await s.invoke(paid('fine'))).toBe('done 1');
      expect(s.runs).toEqual(['fine']);
    },
  );

  it('with hashKeys a key over DynamoDB’s 2048-byte key limit is processed once and replayed to its re-publish', async () => {
    const s = await rig(strategy, true);
    const long = 'k'.repeat(3000);
    expect(await s.invoke(paid(long))).toBe('done 1');
    expect(await s.invoke(paid(long))).toBe('done 1');
    expect(s.lines.map((l) => l.records[0]?.outcome)).toEqual(['completed', 'duplicate']);
    expect(await s.effects()).toBe(1);
  });

  it('a result too large to store: completed without it (a warning), the effect recorded once, the re-publish a replay without it', async () => {
    const s = await rig(strategy);
    await expect(s.invoke(paid('big', 'r'.repeat(450 * 1024)))).resolves.toBeDefined();
    expect(s.lines.at(-1)?.records[0]).toMatchObject({ outcome: 'completed', resultNotStored: { name: 'ItemTooLargeError' } });
    expect(await s.invoke(paid('big', 'r'.repeat(450 * 1024)))).toBeUndefined();
    expect(s.lines.at(-1)?.records[0]?.outcome).toBe('duplicate');
    expect(await s.effects()).toBe(1);
  });

  it('odd but valid keys, compared as given (NFC ≠ NFD, NUL and marks kept): each processed once', async () => {
    const s = await rig(strategy);
    const keys = ['caf\u00e9', 'cafe\u0301', 'a\u0000b', 'a\u0000c', '\u200forder\u200e', 'order', '  ', '👨‍👩‍👧'];
    for (const key of keys) await s.invoke(paid(key));
    for (const key of keys) await s.invoke(paid(key));
    const outcomes = s.lines.map((l) => l.records[0]?.outcome);
    expect(outcomes).toEqual([...keys.map(() => 'completed'), ...keys.map(() => 'duplicate')]);
    expect(s.runs.slice(0, keys.length)).toEqual(keys);
    expect(await s.effects()).toBe(keys.length);
  });
});
