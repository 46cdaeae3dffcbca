/**
 * Copies of one key in one batch, against DynamoDB Local, under both
 * strategies: a later copy is decided from what its first copy found or did,
 * never by running the handler again, and a copy that comes back holds back
 * the rest of its FIFO group like any other record (issue 10, items 1 and 2).
 */
import middy from '@middy/core';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  BusinessConflictError,
  claim,
  eachRecord,
  jsonBody,
  sqsIdempotency,
  transition,
  type SqsIdempotencyOptions,
  transaction,
} from '../../../src/index.js';
import type { CommitMode } from '../../../src/strategies/transaction/group-commit/queue.js';
import type { RecordHandler, TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import type { Strategy } from '../../../src/batch/options.js';
import { sqsDefaults } from '../../../src/sources/sqs/middleware.js';
import { payloadHash } from '../../../src/engine/hashing.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { failedIds, harness, order, type Harness } from './harness.js';
import { strategyOf, type EitherRecordHandler } from '../../support/strategy.js';

/** The payload hash the middleware computes for a record by default. */
const defaultHash = (record: SQSRecord): string => {
  const payload = sqsDefaults.payload;
  if (payload === false) throw new Error('payload checking is on by default');
  return payloadHash(payload(record));
};

const outcomes = (h: Harness) => Object.fromEntries(h.lines.at(-1)?.records.map((r) => [r.messageId, r.outcome]) ?? []);

describe.each<Strategy>(['claim', 'transaction'])('copies of one key in a batch, %s strategy', (strategy) => {
  it('FIFO: a later copy with another payload comes back and holds back the rest of its group', async () => {
    const h = await harness();
    const a = order('sk-k', { v: 1 }, { groupId: 'g1' });
    const changed = order('sk-k', { v: 2 }, { groupId: 'g1' });
    const b = order('sk-b', {}, { groupId: 'g1' });
    const response = await h.handler(undefined, { strategy: strategyOf(strategy) })(sqsEvent([a, changed, b]), h.context());
    expect(outcomes(h)).toEqual({ [a.messageId]: 'completed', [changed.messageId]: 'invalid', [b.messageId]: 'not-started' });
    expect(failedIds(response)).toEqual([changed.messageId, b.messageId]);
    expect(h.effects.get('sk-b')).toBeUndefined();
    expect(await h.store.get(h.store.recordId('test', 'sk-b'))).toBeUndefined();
  });

  it('FIFO: a later copy that differs from the record its first copy found as a duplicate holds back its group', async () => {
    const h = await harness();
    await h.handler(undefined, { strategy: strategyOf(strategy) })(sqsEvent([order('sk-d', { v: 1 })]), h.context());
    const again = order('sk-d', { v: 1 }, { groupId: 'g1' });
    const changed = order('sk-d', { v: 2 }, { groupId: 'g1' });
    const b = order('sk-d-next', {}, { groupId: 'g1' });
    const response = await h.handler(undefined, { strategy: strategyOf(strategy) })(sqsEvent([again, changed, b]), h.context());
    expect(outcomes(h)).toEqual({ [again.messageId]: 'duplicate', [changed.messageId]: 'invalid', [b.messageId]: 'not-started' });
    expect(failedIds(response)).toEqual([changed.messageId, b.messageId]);
    expect(h.effects.get('sk-d-next')).toBeUndefined();
  });

  it('a key stored COMPLETED: an exact duplicate after a changed copy in the same batch is acknowledged', async () => {
    const h = await harness();
    const first = order('sk-s', { v: 1 });
    await h.handler(undefined, { strategy: strategyOf(strategy) })(sqsEvent([first]), h.context());
    const changed = order('sk-s', { v: 2 });
    const same = order('sk-s', { v: 1 });
    const response = await h.handler(undefined, { strategy: strategyOf(strategy) })(sqsEvent([changed, same]), h.context());
    expect(outcomes(h)).toEqual({ [changed.messageId]: 'invalid', [same.messageId]: 'duplicate' });
    expect(failedIds(response)).toEqual([changed.messageId]);
    // The stored record is still the first delivery's (the transaction strategy runs the handler before
    // it finds the mismatch at commit, so only the claim strategy's handler count stays at one).
    expect((await h.store.get(h.store.recordId('test', 'sk-s')))?.messageId).toBe(first.messageId);
    if (strategy === 'claim') expect(h.effects.get('sk-s')).toBe(1);
  });

  it('FIFO: the same pair in one group: the exact duplicate is acknowledged, so it does not end in the DLQ', async () => {
    const h = await harness();
    await h.handler(undefined, { strategy: strategyOf(strategy) })(sqsEvent([order('sk-f', { v: 1 }, { groupId: 'g1' })]), h.context());
    const changed = order('sk-f', { v: 2 }, { groupId: 'g1' });
    const same = order('sk-f', { v: 1 }, { groupId: 'g1' });
    const response = await h.handler(undefined, { strategy: strategyOf(strategy) })(sqsEvent([changed, same]), h.context());
    expect(failedIds(response)).toEqual([changed.messageId]);
    expect(outcomes(h)[same.messageId]).toBe('duplicate');
  });
});

describe('copies of one key in a batch, claim strategy, key held elsewhere', () => {
  it('a key held IN_PROGRESS elsewhere: a copy with the claim’s payload comes back in progress, another is flagged', async () => {
    const h = await harness();
    const held = order('sk-h', { v: 1 });
    await h.store.claim({ consumer: 'test', key: 'sk-h', leaseMs: 600_000, payloadHash: defaultHash(held) });
    const changed = order('sk-h', { v: 2 });
    const same = order('sk-h', { v: 1 });
    const fn: RecordHandler = () => {
      throw new Error('must not run');
    };
    const response = await h.handler(fn)(sqsEvent([changed, same]), h.context());
    expect(outcomes(h)).toEqual({ [changed.messageId]: 'invalid', [same.messageId]: 'in-progress' });
    expect(failedIds(response)).toEqual([changed.messageId, same.messageId]);
  });
});

describe.each<Strategy>(['claim', 'transaction'])(
  'copies of one key behind a parser that replaces the records, %s strategy',
  (strategy) => {
    // Interaction of item 8 (a middleware after ours replaces the event and its records) with
    // same-key copies: the later copy is never handed to the handler, is still decided in its
    // first copy's lane, and the parser's record objects are what the handler runs.
    async function run(h: Harness, records: SQSRecord[]) {
      const seen: unknown[] = [];
      const handler = middy<SQSEvent, SQSBatchResponse>()
        .use(
          sqsIdempotency({
            store: h.store,
            consumer: 'test',
            strategy: strategyOf(strategy),
            key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
            logger: (l) => h.lines.push(l),
          }),
        )
        .before((request) => {
          request.event = { Records: request.event.Records.map((r) => ({ ...r, parsed: true })) };
        })
        .handler(
          eachRecord((record, { key }) => {
            seen.push((record as SQSRecord & { parsed?: boolean }).parsed);
            h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
            if (key.startsWith('fail')) throw new Error('handler failed');
          }),
        );
      const response = await handler(sqsEvent(records), h.context());
      return { response, seen };
    }

    it('FIFO: copy with the same payload acknowledged, copy with another payload holds back the group', async () => {
      const h = await harness();
      const a = order('pk-k', { v: 1 }, { groupId: 'g1' });
      const same = order('pk-k', { v: 1 }, { groupId: 'g1' });
      const changed = order('pk-k', { v: 2 }, { groupId: 'g1' });
      const b = order('pk-b', {}, { groupId: 'g1' });
      const other = order('pk-o', {}, { groupId: 'g2' });
      const { response, seen } = await run(h, [a, same, changed, b, other]);
      expect(outcomes(h)).toEqual({
        [a.messageId]: 'completed',
        [same.messageId]: 'duplicate',
        [changed.messageId]: 'invalid',
        [b.messageId]: 'not-started',
        [other.messageId]: 'completed',
      });
      expect(failedIds(response).sort()).toEqual([changed.messageId, b.messageId].sort());
      expect(seen).toEqual([true, true]); // a and other only, each the parser's object
      expect(h.effects.get('pk-k')).toBe(1);
      expect(h.effects.get('pk-b')).toBeUndefined();
    });

    it('standard queue: a failed first copy sends its later copy back too, unrun', async () => {
      const h = await harness();
      const a = order('fail-k', { v: 1 });
      const same = order('fail-k', { v: 1 });
      const { response, seen } = await run(h, [a, same]);
      expect(outcomes(h)).toEqual({ [a.messageId]: 'failed', [same.messageId]: 'not-started' });
      expect(failedIds(response).sort()).toEqual([a.messageId, same.messageId].sort());
      expect(seen).toEqual([true]);
    });
  },
);

describe.each<readonly [string, Partial<SqsIdempotencyOptions>]>([
  ['claim strategy', { strategy: claim() }],
  ['transaction strategy, commit: "group"', { strategy: transaction({ commit: 'group' }) }],
  ['transaction strategy, commit: "record"', { strategy: transaction({ commit: 'record' }) }],
])('a copy of a key behind a first copy that hit a business conflict, %s', (_name, options) => {
  // The same order paid twice in one batch, but the order is CANCELLED: the first copy's transition is refused.
  async function setup() {
    const h = await harness();
    const { client, doc } = testDynamo();
    const business = await freshTable(client, businessTable, 'biz');
    const runs = new Map<string, number>();
    const pay: EitherRecordHandler = async (_record, { key, tx }) => {
      runs.set(key, (runs.get(key) ?? 0) + 1);
      const paid = { tableName: business, key: { pk: `order#${key}` }, from: 'PENDING', to: 'PAID' } as const;
      if (tx !== undefined) {
        tx.transition(paid);
        return;
      }
      const r = await transition(doc, paid);
      if (r.kind !== 'applied') throw new BusinessConflictError(`order#${key}: ${r.kind}`, []);
    };
    const cancel = (key: string) => doc.send(new PutCommand({ TableName: business, Item: { pk: `order#${key}`, status: 'CANCELLED' } }));
    // The transaction's handler adds the transition to tx; the claim's applies it itself.
    const handler = () => (options.strategy?.kind === 'claim' ? h.handler(pay, options) : h.txHandler(pay, options));
    return { h, pay, handler, runs, cancel };
  }
  const entry = (h: Harness, r: SQSRecord) => h.lines.at(-1)?.records.find((x) => x.messageId === r.messageId);
  const firstCopy = options.strategy?.kind === 'claim' ? 'failed' : 'conflict';

  it('standard queue: the later copy is not-started (same-key-failed) in the log line, and both come back; the handler ran once', async () => {
    const { h, handler, runs, cancel } = await setup();
    await cancel('bc-s');
    const a = order('bc-s', { v: 1 });
    const same = order('bc-s', { v: 1 });
    const response = await handler()(sqsEvent([a, same]), h.context());
    expect(entry(h, a)).toMatchObject({ outcome: firstCopy });
    expect(entry(h, same)).toEqual({ messageId: same.messageId, outcome: 'not-started', id: 'test#bc-s', reason: 'same-key-failed' });
    expect(h.lines.at(-1)?.counts).toMatchObject({ [firstCopy]: 1, 'not-started': 1 });
    expect(failedIds(response).sort()).toEqual([a.messageId, same.messageId].sort());
    expect(runs.get('bc-s')).toBe(1);
    expect(await h.store.get(h.store.recordId('test', 'bc-s'))).toBeUndefined();
  });

  it('FIFO: the later copy is not-started (same-key-failed) and holds back the rest of its group', async () => {
    const { h, handler, cancel } = await setup();
    await cancel('bc-f');
    const a = order('bc-f', { v: 1 }, { groupId: 'g1' });
    const same = order('bc-f', { v: 1 }, { groupId: 'g1' });
    const b = order('bc-f-next', {}, { groupId: 'g1' });
    const response = await handler()(sqsEvent([a, same, b]), h.context());
    expect(entry(h, same)).toMatchObject({ outcome: 'not-started', reason: 'same-key-failed' });
    expect(entry(h, b)).toMatchObject({ outcome: 'not-started', reason: 'group-failed' });
    expect(failedIds(response)).toEqual([a.messageId, same.messageId, b.messageId]);
  });
});

describe.each<CommitMode>(['group', 'record'])(
  'a copy behind a final business conflict (onConflict: "acknowledge"), commit: "%s"',
  (commit) => {
    it('shares the final conflict: both acknowledged, the handler ran once', async () => {
      const h = await harness();
      const { client, doc } = testDynamo();
      const business = await freshTable(client, businessTable, 'biz');
      await doc.send(new PutCommand({ TableName: business, Item: { pk: 'order#bc-a', status: 'CANCELLED' } }));
      let runs = 0;
      const pay: TransactionRecordHandler = (_record, { tx }) => {
        runs += 1;
        tx.transition({ tableName: business, key: { pk: 'order#bc-a' }, from: 'PENDING', to: 'PAID' });
      };
      const a = order('bc-a', { v: 1 });
      const same = order('bc-a', { v: 1 });
      const handler = h.txHandler(pay, { strategy: transaction({ commit, onConflict: 'acknowledge' }) });
      const response = await handler(sqsEvent([a, same]), h.context());
      expect(outcomes(h)).toEqual({ [a.messageId]: 'conflict', [same.messageId]: 'conflict' });
      expect(failedIds(response)).toEqual([]);
      expect(runs).toBe(1);
    });
  },
);
