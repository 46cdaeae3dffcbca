/**
 * The claim-only entry (`effectively-once/claim`) on DynamoDB Local: its
 * `sqsIdempotency` and `eachRecord` behave as the main entry's for the claim
 * strategy (fresh, duplicate, failure retried, FIFO, result replay), a store
 * from either entry works with either middleware, and every option it cannot
 * serve is a `TypeError` naming the option.
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as claimEntry from '../../src/claim/index.js';
import {
  DynamoDBClaimStore,
  eachRecord,
  jsonBody,
  sqsIdempotency,
  type IdempotencyStore,
  type SqsIdempotencyOptions,
} from '../../src/claim/index.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import type { RecordHandler } from '../../src/batch/runner-link.js';
import * as main from '../../src/index.js';
import { lambdaContext, ManualClock, sqsEvent, sqsRecord } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';
import { transaction, claim } from '../../src/index.js';

const order = (orderNo: string, extra: Record<string, unknown> = {}, groupId?: string): SQSRecord =>
  sqsRecord({
    body: JSON.stringify({ orderNo, ...extra }),
    ...(groupId === undefined ? {} : { queueArn: 'arn:aws:sqs:us-east-1:123456789012:orders.fifo', groupId }),
  });

const failedIds = (response: SQSBatchResponse | undefined): string[] => (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);

async function rig() {
  const { doc } = testDynamo();
  const table = await freshTable(testDynamo().client);
  const clock = new ManualClock(Date.now());
  const store = new DynamoDBClaimStore({ client: doc, tableName: table, clock });
  const lines: BatchLogLine[] = [];
  const effects = new Map<string, number>();
  const count: RecordHandler = (_record, { key }) => {
    effects.set(key, (effects.get(key) ?? 0) + 1);
  };
  const handler = (fn: RecordHandler = count, options: Partial<SqsIdempotencyOptions> = {}, on: IdempotencyStore = store) =>
    middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store: on,
          consumer: 'claim-entry',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: (line) => lines.push(line),
          ...options,
        }),
      )
      .handler(eachRecord(fn));
  const context = () => lambdaContext({ functionName: 'claim-fn', timeoutMs: 60_000, clock });
  return { doc, table, clock, store, lines, effects, handler, context };
}

describe('effectively-once/claim: sqsIdempotency on DynamoDB Local', () => {
  it('runs a fresh record once and acknowledges its duplicate (a re-send under a new message id) without running it', async () => {
    const r = await rig();
    const first = await r.handler()(sqsEvent([order('c-1')]), r.context());
    const again = await r.handler()(sqsEvent([order('c-1')]), r.context());
    expect(failedIds(first)).toEqual([]);
    expect(failedIds(again)).toEqual([]);
    expect(r.effects.get('c-1')).toBe(1);
    expect(r.lines.map((l) => [l.strategy, l.counts.completed, l.counts.duplicate])).toEqual([
      ['claim', 1, 0],
      ['claim', 0, 1],
    ]);
  });

  it('a failed record comes back alone with its claim released, and its retry runs it', async () => {
    const r = await rig();
    let fail = true;
    const flaky: RecordHandler = (record, ctx) => {
      if (jsonBody<{ orderNo: string }>(record).orderNo === 'c-bad' && fail) throw new Error('downstream down');
      r.effects.set(ctx.key, (r.effects.get(ctx.key) ?? 0) + 1);
    };
    const bad = order('c-bad');
    const good = order('c-good');
    const response = await r.handler(flaky)(sqsEvent([bad, good]), r.context());
    expect(failedIds(response)).toEqual([bad.messageId]);
    expect(await r.store.get(r.store.recordId('claim-entry', 'c-bad'))).toBeUndefined();
    fail = false;
    expect(failedIds(await r.handler(flaky)(sqsEvent([bad]), r.context()))).toEqual([]);
    expect(r.effects.get('c-bad')).toBe(1);
    expect(r.effects.get('c-good')).toBe(1);
  });

  it('FIFO: a failure stops the rest of its message group, other groups go on', async () => {
    const r = await rig();
    const ran: string[] = [];
    const fn: RecordHandler = (record) => {
      const { orderNo } = jsonBody<{ orderNo: string }>(record);
      ran.push(orderNo);
      if (orderNo === 'a-1') throw new Error('boom');
    };
    const a1 = order('a-1', {}, 'A');
    const a2 = order('a-2', {}, 'A');
    const b1 = order('b-1', {}, 'B');
    const response = await r.handler(fn)(sqsEvent([a1, a2, b1]), r.context());
    expect(failedIds(response).sort()).toEqual([a1.messageId, a2.messageId].sort());
    expect(ran.sort()).toEqual(['a-1', 'b-1']);
  });

  it('storeResult replays the first result to a duplicate, and a changed payload under the same key is invalid', async () => {
    const r = await rig();
    const results: unknown[] = [];
    const fn: RecordHandler = (_record, ctx) => ({ receipt: `r-${ctx.key}` });
    const log = (line: BatchLogLine) => results.push(...line.records.map((e) => e.outcome));
    await r.handler(fn, { storeResult: true, logger: log })(sqsEvent([order('c-2', { amount: 1 })]), r.context());
    const replay = await r.store.get(r.store.recordId('claim-entry', 'c-2'));
    expect(replay?.result).toEqual({ receipt: 'r-c-2' });
    const changed = order('c-2', { amount: 2 });
    expect(failedIds(await r.handler(fn, { storeResult: true, logger: log })(sqsEvent([changed]), r.context()))).toEqual([
      changed.messageId,
    ]);
    expect(results).toEqual(['completed', 'invalid']);
  });

  it('a store from either entry works with either middleware: the same records, the same outcomes', async () => {
    const r = await rig();
    const mainStore = new main.DynamoDBIdempotencyStore({ client: r.doc, tableName: r.table, clock: r.clock });
    // The main entry's store behind the claim entry's middleware...
    expect(failedIds(await r.handler(undefined, {}, mainStore)(sqsEvent([order('x-1')]), r.context()))).toEqual([]);
    // ...and the claim entry's store behind the main entry's middleware, which finds the record done.
    const lines: BatchLogLine[] = [];
    const viaMain = middy<SQSEvent, SQSBatchResponse>()
      .use(
        main.sqsIdempotency({
          store: r.store,
          consumer: 'claim-entry',
          key: (rec) => main.jsonBody<{ orderNo: string }>(rec).orderNo,
          logger: (line) => lines.push(line),
          metrics: false,
        }),
      )
      .handler(main.eachRecord(() => r.effects.set('ran-in-main', 1)));
    expect(failedIds(await viaMain(sqsEvent([order('x-1')]), r.context()))).toEqual([]);
    expect(lines[0]?.counts.duplicate).toBe(1);
    expect(r.effects.get('x-1')).toBe(1);
    expect(r.effects.has('ran-in-main')).toBe(false);
    // One class per name: the claim entry's store has its own name, the base class of the main entry's.
    expect('DynamoDBIdempotencyStore' in claimEntry).toBe(false);
    expect(mainStore).toBeInstanceOf(DynamoDBClaimStore);
  });

  it('logs the same line as the main entry for the same batch', async () => {
    const r = await rig();
    const mainLines: BatchLogLine[] = [];
    const records = [order('s-1'), order('s-2'), order('s-1')];
    const viaMain = middy<SQSEvent, SQSBatchResponse>()
      .use(
        main.sqsIdempotency({
          store: new main.DynamoDBIdempotencyStore({ client: r.doc, tableName: await freshTable(testDynamo().client) }),
          consumer: 'claim-entry',
          key: (rec) => main.jsonBody<{ orderNo: string }>(rec).orderNo,
          logger: (line) => mainLines.push(line),
          metrics: false,
        }),
      )
      .handler(main.eachRecord(() => undefined));
    const viaClaim = r.handler(() => undefined);
    expect(failedIds(await viaClaim(sqsEvent(records), r.context()))).toEqual(failedIds(await viaMain(sqsEvent(records), r.context())));
    const shape = (l: BatchLogLine | undefined) => ({ ...l, durationMs: 0 });
    expect(shape(r.lines[0])).toEqual(shape(mainLines[0]));
  });
});

describe('effectively-once/claim: what it refuses', () => {
  const { doc } = testDynamo();
  const store = new DynamoDBClaimStore({ client: doc, tableName: 'unused' });
  const base = { store, consumer: 'c', key: (r: SQSRecord) => r.messageId };
  const client = { send: async () => ({}) };
  const refused: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ['strategy', { strategy: transaction() }],
    ['strategy', { strategy: main.transaction() }],
    ['strategy', { strategy: main.transaction({ onConflict: 'acknowledge' }) }],
    ['strategy', { strategy: main.transaction({ commit: 'record' }) }],
    ['strategy', { strategy: main.transaction({ probeDuplicates: 'always' }) }],
    ['strategy', { strategy: main.claim({ heartbeat: true }) }],
    ['strategy', { strategy: main.claim({ heartbeat: { everyMs: 1_000 } }), lease: { capMs: 60_000 } }],
    ['strategy', { strategy: main.claim({ pipelined: true }) }],
    ['metrics', { metrics: {} }],
    ['sqs', { sqs: client }],
    ['queueUrl', { queueUrl: () => 'https://sqs/q' }],
    ['permanentFailures', { permanentFailures: {} }],
    ['backoff', { backoff: {} }],
  ];

  for (const [name, option] of refused) {
    it(`option "${name}" (${JSON.stringify(option)}) is a TypeError naming it and pointing to the main entry`, () => {
      const build = () => sqsIdempotency({ ...base, ...option } as unknown as SqsIdempotencyOptions);
      expect(build).toThrow(TypeError);
      expect(build).toThrow(`option "${name}"`);
      expect(build).toThrow("import sqsIdempotency from 'effectively-once'");
    });
  }

  const settings: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ['onConflict', { onConflict: 'acknowledge' }, 'unknown option "onConflict"'],
    ['commit', { commit: 'record' }, 'unknown option "commit"'],
    ['probeDuplicates', { probeDuplicates: 'always' }, 'unknown option "probeDuplicates"'],
    ['lease.heartbeat', { lease: { heartbeat: true } }, 'option "lease" must be'],
    ['claims', { claims: 'pipelined' }, 'unknown option "claims"'],
  ];
  for (const [name, option, said] of settings) {
    it(`a strategy's setting "${name}" given to the middleware is a TypeError naming it, as on the main entry`, () => {
      const build = () => sqsIdempotency({ ...base, ...option } as unknown as SqsIdempotencyOptions);
      expect(build).toThrow(TypeError);
      expect(build).toThrow(`sqsIdempotency: ${said}`);
      expect(() => main.sqsIdempotency({ ...base, ...option } as never)).toThrow(`sqsIdempotency: ${said}`);
    });
  }

  it('takes a refused option set to undefined as not given, as the main entry does (one options object serves both)', () => {
    for (const name of ['sqs', 'queueUrl', 'permanentFailures', 'backoff']) {
      expect(() => sqsIdempotency({ ...base, [name]: undefined } as unknown as SqsIdempotencyOptions), name).not.toThrow();
      expect(() => main.sqsIdempotency({ ...base, [name]: undefined } as never), name).not.toThrow();
    }
  });

  it('takes what it serves, with the main entry’s checks for the rest', () => {
    expect(() => sqsIdempotency({ ...base, strategy: claim(), metrics: false, lease: { capMs: 60_000 } })).not.toThrow();
    // A JavaScript caller handing in the main entry's claim() with its defaults asks for nothing left out.
    expect(() => sqsIdempotency({ ...base, strategy: main.claim() } as unknown as SqsIdempotencyOptions)).not.toThrow();
    expect(() => sqsIdempotency({ ...base, storeResult: 'yes' } as unknown as SqsIdempotencyOptions)).toThrow(
      'option "storeResult" must be a boolean',
    );
    expect(() => sqsIdempotency({ ...base, typo: 1 } as unknown as SqsIdempotencyOptions)).toThrow('unknown option "typo"');
  });

  it('eachRecord without a middleware runs SQS records and refuses stream records', async () => {
    const ran: string[] = [];
    const handler = eachRecord((record) => {
      ran.push(record.messageId);
    });
    const record = order('plain');
    expect(await handler({ Records: [record] }, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(ran).toEqual([record.messageId]);
    const kinesis = { Records: [{ eventSource: 'aws:kinesis', kinesis: { sequenceNumber: '1' } }] } as unknown as { Records: SQSRecord[] };
    await expect(handler(kinesis, lambdaContext())).rejects.toThrow("eachRecord from 'effectively-once'");
  });

  it('exports exactly its listed values', () => {
    expect(Object.keys(claimEntry).sort()).toEqual(
      [
        'DynamoDBClaimStore',
        'EffectivelyOnceError',
        'InvalidRecordError',
        'LeaseLostError',
        'PayloadMismatchError',
        'eachRecord',
        'jsonBody',
        'jsonBodyAsync',
        'sqsIdempotency',
      ].sort(),
    );
    // The error classes are the main entry's own: an `instanceof` holds whichever entry a handler imported.
    expect(claimEntry.InvalidRecordError).toBe(main.InvalidRecordError);
    expect(claimEntry.jsonBody).toBe(main.jsonBody);
  });
});
