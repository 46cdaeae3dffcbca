/**
 * Bad input sweep (issue #5): malformed events and records, huge bodies and
 * results, odd and over-long keys, against real DynamoDB Local and both
 * strategies. A malformed *event* (nothing to report per record) is refused
 * whole with a clear error before anything is written; a bad *record* fails
 * alone with a typed `InvalidRecordError` in the log line and comes back in
 * `batchItemFailures` (so the queue's redrive moves it to the DLQ), while
 * every good record of the same batch is processed exactly once.
 */
import { createHash } from 'node:crypto';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { DynamoDBIdempotencyStoreOptions } from '../../src/index.js';
import type { Strategy } from '../../src/batch/options.js';
import { sqsEvent, sqsRecord } from '../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';
import { failedIds, harness, order, type Harness } from './sqs/harness.js';
import { strategyOf, type EitherRecordHandler } from '../support/strategy.js';

/** A harness whose effects are counted where the strategy applies them: in memory (claim) or in a table (transaction). */
async function rig(strategy: Strategy, storeOptions: Partial<DynamoDBIdempotencyStoreOptions> = {}) {
  const h = await harness(storeOptions);
  const { client, doc } = testDynamo();
  const business = strategy === 'transaction' ? await freshTable(client, businessTable, 'biz') : undefined;
  // SHA-256 of the UTF-16 code units: a short business key, faithful for any string, lone surrogates included.
  const pk = (key: string) => `effect#${createHash('sha256').update(Buffer.from(key, 'utf16le')).digest('hex')}`;
  /** Keys the handler was called with (the transaction strategy calls it for duplicates too; their commit is refused). */
  const calls: string[] = [];
  const effect: EitherRecordHandler = (_r, { key, tx }) => {
    calls.push(key);
    if (business === undefined || tx === undefined) {
      h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
      return;
    }
    tx.update({ TableName: business, Key: { pk: pk(key) }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } });
  };
  async function effects(key: string): Promise<number> {
    if (business === undefined) return h.effects.get(key) ?? 0;
    const item = (await doc.send(new GetCommand({ TableName: business, Key: { pk: pk(key) }, ConsistentRead: true }))).Item;
    return (item?.['n'] as number | undefined) ?? 0;
  }
  const handler = (fn: EitherRecordHandler = effect, options: { storeResult?: boolean } = {}) =>
    strategy === 'transaction' ? h.txHandler(fn, { ...options }) : h.handler(fn, { strategy: strategyOf(strategy), ...options });
  const run = async (records: SQSRecord[], fn?: EitherRecordHandler, options?: { storeResult?: boolean }) =>
    failedIds(await handler(fn, options)(sqsEvent(records), h.context()));
  return { h, handler, run, effect, effects, calls };
}

/** Error name logged for each message id of the last batch (undefined for records without an error). */
function errorNames(h: Harness): Record<string, string | undefined> {
  return Object.fromEntries((h.lines.at(-1)?.records ?? []).map((r) => [r.messageId, r.error?.name]));
}

function outcomes(h: Harness): Record<string, string> {
  return Object.fromEntries((h.lines.at(-1)?.records ?? []).map((r) => [r.messageId, r.outcome]));
}

/** How many items the idempotency table holds (to prove a refused event wrote nothing). */
async function idempotencyItemCount(h: Harness): Promise<number> {
  return (await h.doc.send(new ScanCommand({ TableName: h.table, Select: 'COUNT' }))).Count ?? -1;
}

const strategies: Strategy[] = ['claim', 'transaction'];

describe.each(strategies)('bad input sweep, %s strategy: events that are not SQS events', (strategy) => {
  const notSqs: Array<[string, unknown]> = [
    ['null', null],
    ['no Records', { detail: {} }],
    ['Records not an array', { Records: { 0: order('x') } }],
    ['a record that is null', { Records: [order('ok-1'), null] }],
    ['a record without a messageId (cannot be reported alone)', { Records: [{ body: '{"orderNo":"x"}', eventSource: 'aws:sqs' }] }],
    ['a record from another event source', { Records: [order('ok-2'), { ...order('sns-1'), eventSource: 'aws:sns' }] }],
  ];
  it.each(notSqs)('%s: refused whole with a TypeError naming sqsIdempotency, before anything is written', async (_name, event) => {
    const { h, handler, calls } = await rig(strategy);
    const error = await handler()(event as SQSEvent, h.context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toMatch(/^sqsIdempotency: the event is not an SQS event: \S/);
    expect(await idempotencyItemCount(h)).toBe(0);
    expect(calls).toEqual([]);
    expect(h.lines).toEqual([]);
  });

  it('an empty batch is answered with no failures', async () => {
    const { h, handler } = await rig(strategy);
    expect(await handler()({ Records: [] }, h.context())).toEqual({ batchItemFailures: [] });
  });
});

describe.each(strategies)('bad input sweep, %s strategy: bad records fail alone', (strategy) => {
  it('missing or non-string body, invalid JSON, no key, empty key: each a typed error; the good records run once', async () => {
    const { h, run, effects, calls } = await rig(strategy);
    const { body: _body, ...withoutBody } = sqsRecord({ body: '{"orderNo":"nobody"}' });
    const bad = {
      noBody: withoutBody as SQSRecord,
      numberBody: { ...sqsRecord({ body: '' }), body: 42 as unknown as string },
      nullBody: { ...sqsRecord({ body: '' }), body: null as unknown as string },
      invalidJson: sqsRecord({ body: '{"orderNo": "bad-json"' }),
      emptyBody: sqsRecord({ body: '' }),
      noKey: sqsRecord({ body: { amount: 3 } }),
      emptyKey: order(''),
      objectKey: sqsRecord({ body: { orderNo: { nested: true } } }),
    };
    const good = [order('g-1'), order('g-2'), order('g-3')];
    const batch = [good[0], ...Object.values(bad).slice(0, 4), good[1], ...Object.values(bad).slice(4), good[2]] as SQSRecord[];
    // Before the fix a record without a string body made the whole batch throw: every good record came back too.
    expect((await run(batch)).sort()).toEqual(
      Object.values(bad)
        .map((r) => r.messageId)
        .sort(),
    );
    expect(errorNames(h)).toMatchObject({
      [bad.noBody.messageId]: 'BodyParseError',
      [bad.numberBody.messageId]: 'BodyParseError',
      [bad.nullBody.messageId]: 'BodyParseError',
      [bad.invalidJson.messageId]: 'BodyParseError',
      [bad.emptyBody.messageId]: 'BodyParseError',
      [bad.noKey.messageId]: 'MissingKeyError',
      [bad.emptyKey.messageId]: 'MissingKeyError',
      [bad.objectKey.messageId]: 'MissingKeyError',
    });
    for (const r of Object.values(bad)) expect(outcomes(h)[r.messageId]).toBe('invalid');
    for (const key of ['g-1', 'g-2', 'g-3']) expect(await effects(key)).toBe(1);
    expect(h.lines.at(-1)?.counts).toMatchObject({ completed: 3, invalid: 8 });
    expect(calls.sort()).toEqual(['g-1', 'g-2', 'g-3']);
  });

  it('a 300 KB body (over SQS’s 256 KB) is processed once; its redelivery is a duplicate', async () => {
    const { h, run, effects } = await rig(strategy);
    const huge = order('big-body', { padding: 'x'.repeat(300 * 1024) });
    const small = order('small-body');
    expect(await run([huge, small])).toEqual([]);
    expect(await run([{ ...huge, messageId: 'redelivered' }])).toEqual([]);
    expect(outcomes(h)['redelivered']).toBe('duplicate');
    expect(await effects('big-body')).toBe(1);
    expect(await effects('small-body')).toBe(1);
  });

  it('a result too large to store: that record completed without it (ItemTooLargeError named), its effect recorded once', async () => {
    const { h, run, effect, effects } = await rig(strategy);
    const fn: EitherRecordHandler = async (record, ctx) => {
      await effect(record, ctx);
      return ctx.key === 'huge-result' ? 'r'.repeat(450 * 1024) : 'ok';
    };
    const [huge, small] = [order('huge-result'), order('small-result')];
    expect(await run([huge, small], fn, { storeResult: true })).toEqual([]);
    expect(h.lines.at(-1)?.records.find((r) => r.messageId === huge.messageId)?.resultNotStored?.name).toBe('ItemTooLargeError');
    expect(outcomes(h)[huge.messageId]).toBe('completed');
    const stored = await h.store.get(h.store.recordId('test', 'huge-result'));
    expect(stored).toMatchObject({ status: 'COMPLETED' });
    expect(stored?.result).toBeUndefined();
    expect((await h.store.get(h.store.recordId('test', 'small-result')))?.result).toBe('ok');
    // A redelivery (an at-least-once copy) is a duplicate: the effect never runs twice.
    expect(await run([{ ...huge, messageId: 'huge-again' }], fn, { storeResult: true })).toEqual([]);
    expect(outcomes(h)['huge-again']).toBe('duplicate');
    expect(await effects('huge-result')).toBe(1);
    expect(await effects('small-result')).toBe(1);
  });
});

/**
 * Keys are compared as given, code unit for code unit: no Unicode
 * normalisation, no trimming. A producer that re-sends an event sends the
 * same bytes; folding "é" (NFC) and "e\u0301" (NFD) together would merge two
 * business keys the producer keeps apart, and could not be undone.
 */
const oddButValidKeys: Record<string, string> = {
  emoji: '🧾 order 😀',
  'family emoji (ZWJ sequence)': '👨‍👩‍👧',
  'NFC é': 'caf\u00e9',
  'NFD é (combining mark)': 'cafe\u0301',
  'NUL inside': 'a\u0000b',
  'NUL inside, other tail': 'a\u0000c',
  'RTL and LTR marks': '\u200forder-1\u200e',
  'no marks': 'order-1',
  'whitespace only': '   ',
  'one space': ' ',
  'byte order mark only': '\ufeff',
  'Arabic (RTL script)': 'طلب-٤٢',
};

const loneSurrogateKeys: Record<string, string> = {
  'lone high surrogate': 'x\ud800',
  'another lone high surrogate': 'x\udbff',
  'lone low surrogate': '\udc00x',
};

describe.each(
  strategies.flatMap(
    (s) =>
      [
        [s, false],
        [s, true],
      ] as const,
  ),
)('keys, %s strategy, hashKeys %s', (strategy, hashKeys) => {
  it('odd but valid Unicode keys (byte-exact, NFC ≠ NFD): each processed once, each a duplicate when delivered again', async () => {
    const { h, run, effects } = await rig(strategy, { hashKeys });
    const keys = Object.values(oddButValidKeys);
    expect(new Set(keys).size).toBe(keys.length);
    // One batch, claimed concurrently: two keys that collided in the table would show up here as in-progress or duplicate.
    expect(await run(keys.map((k) => order(k)))).toEqual([]);
    expect(h.lines.at(-1)?.counts).toMatchObject({ completed: keys.length, duplicate: 0 });
    const again = keys.map((k) => order(k));
    expect(await run(again)).toEqual([]);
    expect(h.lines.at(-1)?.counts).toMatchObject({ completed: 0, duplicate: keys.length });
    for (const key of keys) {
      expect(await effects(key)).toBe(1);
      expect((await h.store.get(h.store.recordId('test', key)))?.id).toBe(h.store.recordId('test', key));
    }
  });

  // UTF-8 (DynamoDB strings, SHA-256 input) turns each lone surrogate into U+FFFD: before the fix "x\ud800" and
  // "x\udbff" shared one record, and only their differing payloads kept the second from passing as a duplicate.
  it('keys with lone surrogates (not Unicode, cannot be stored faithfully) fail alone with MissingKeyError', async () => {
    const { h, run, effects } = await rig(strategy, { hashKeys });
    const bad = Object.values(loneSurrogateKeys).map((k) => order(k));
    const good = order('fine');
    expect((await run([...bad, good])).sort()).toEqual(bad.map((r) => r.messageId).sort());
    for (const r of bad) expect(errorNames(h)[r.messageId]).toBe('MissingKeyError');
    expect(await effects('fine')).toBe(1);
  });

  // DynamoDB's partition key limit is 2048 bytes of UTF-8; the library keeps raw keys to 1024 bytes.
  const longKeys = { 'ASCII, 2100 bytes': 'k'.repeat(2100), 'emoji, 1200 UTF-16 units but 2400 bytes': '😀'.repeat(600) };
  it(`keys over DynamoDB's key size limit: ${hashKeys ? 'hashed, so processed once' : 'KeyTooLongError for that record alone'}`, async () => {
    const { h, run, effects } = await rig(strategy, { hashKeys });
    const long = Object.values(longKeys).map((k) => order(k));
    const good = order('short');
    const failed = await run([...long, good]);
    expect(await effects('short')).toBe(1);
    if (!hashKeys) {
      expect(failed.sort()).toEqual(long.map((r) => r.messageId).sort());
      for (const r of long) expect(errorNames(h)[r.messageId]).toBe('KeyTooLongError');
      for (const key of Object.values(longKeys)) expect(await effects(key)).toBe(0);
      return;
    }
    expect(failed).toEqual([]);
    expect(await run(Object.values(longKeys).map((k) => order(k)))).toEqual([]);
    expect(h.lines.at(-1)?.counts.duplicate).toBe(2);
    for (const key of Object.values(longKeys)) expect(await effects(key)).toBe(1);
  });
});
