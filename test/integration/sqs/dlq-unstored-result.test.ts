/**
 * An effect that succeeded never reaches the DLQ: a completion stored without
 * its result (too large, not JSON) is a completed record. Against fauxqs and
 * DynamoDB Local, with `deadLetter()` and `storeResult: true`: the record is
 * acknowledged, nothing is sent to the DLQ, the line warns naming the record
 * and why, and the metrics count it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetter, emfMetrics, transaction } from '../../../src/index.js';
import type { EmfDocument } from '../../../src/observe/emf.js';
import type { RecordHandler, TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { startLocalSqs, type LocalSqs } from '../../../scripts/local/sqs-server.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { harness, type Harness } from './harness.js';
import { countingClient, pollOnce, queuePair, receiveAll, send } from './sqs-queues.js';

let sqs: LocalSqs;
let h: Harness;
beforeAll(async () => {
  sqs = await startLocalSqs();
  h = await harness();
});
afterAll(async () => sqs?.stop());

/** A 450 KB result for `huge-*`, a BigInt for `bigint-*`, a small one otherwise; each effect counted. */
const handlerFn: RecordHandler = (_record, { key }) => {
  h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
  if (key.startsWith('huge-')) return 'x'.repeat(450 * 1024);
  if (key.startsWith('bigint-')) return { total: 10n };
  return 'small';
};

describe.each([
  ['claim', {}],
  ['transaction', { strategy: transaction() }],
] as const)('%s strategy, storeResult and deadLetter: a result that cannot be stored', (_name, strategy) => {
  it('is a completed record: acknowledged, nothing sent to the DLQ, a warning naming it, counted in the metrics', async () => {
    const { source, dlq } = await queuePair(sqs.client);
    const tag = `${_name}-${Date.now()}`;
    const hugeId = await send(sqs.client, source, { orderNo: `huge-${tag}` });
    const bigId = await send(sqs.client, source, { orderNo: `bigint-${tag}` });
    const okId = await send(sqs.client, source, { orderNo: `ok-${tag}` });
    const counting = countingClient(sqs);
    const documents: EmfDocument[] = [];
    const lines = h.lines.length;
    const handler = h.handler(handlerFn, {
      ...strategy,
      storeResult: true,
      deadLetter: deadLetter({ sqs: counting.client }),
      metrics: emfMetrics({ emit: (doc) => documents.push(doc) }),
    });
    const report = await pollOnce(sqs.client, source, handler);

    expect(report?.outcome).toBe('succeeded');
    expect([...(report?.deleted ?? [])].sort()).toEqual([hugeId, bigId, okId].sort());
    expect(counting.commands).not.toContain('SendMessageBatchCommand');
    expect(await receiveAll(sqs.client, dlq)).toEqual([]);
    const line = h.lines.slice(lines).at(-1);
    expect(line?.counts).toMatchObject({ completed: 3, invalid: 0, 'dead-lettered': 0 });
    expect(line?.retried).toBe(0);
    expect(line?.level).toBe('WARN');
    const byId = new Map(line?.records.map((r) => [r.messageId, r]));
    expect(byId.get(hugeId)?.resultNotStored?.name).toBe('ItemTooLargeError');
    expect(byId.get(bigId)?.resultNotStored?.name).toBe('UnstorableResultError');
    expect(byId.get(okId)?.resultNotStored).toBeUndefined();
    const warnings = line?.warnings ?? [];
    expect(warnings).toHaveLength(2);
    expect(warnings.find((w) => w.includes(hugeId))).toMatch(/result was not stored.*ItemTooLargeError/);
    expect(warnings.find((w) => w.includes(bigId))).toMatch(/result was not stored.*UnstorableResultError/);
    expect(documents.at(-1)?.['ResultsNotStored']).toBe(2);
    // Completed without the result, each effect once: a redelivery is a duplicate.
    for (const key of [`huge-${tag}`, `bigint-${tag}`]) {
      const stored = await h.store.get(h.store.recordId('test', key));
      expect(stored?.status).toBe('COMPLETED');
      expect(stored?.result).toBeUndefined();
      expect(h.effects.get(key)).toBe(1);
    }
  });
});

describe('transaction strategy: the business write and the record commit once, without the result', () => {
  it('an oversized result with a business write: acknowledged, the write committed once', async () => {
    const { client, doc } = testDynamo();
    const business = await freshTable(client, businessTable, 'biz');
    const { source, dlq } = await queuePair(sqs.client);
    const key = `tx-huge-${Date.now()}`;
    const id = await send(sqs.client, source, { orderNo: key });
    const fn: TransactionRecordHandler = (_r, { key: k, tx }) => {
      tx.put({ TableName: business, Item: { pk: k } });
      return 'x'.repeat(450 * 1024);
    };
    const handler = h.txHandler(fn, { strategy: transaction(), storeResult: true, deadLetter: deadLetter({ sqs: sqs.client }) });
    const report = await pollOnce(sqs.client, source, handler);
    expect(report?.deleted).toEqual([id]);
    expect(await receiveAll(sqs.client, dlq)).toEqual([]);
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    expect((await doc.send(new GetCommand({ TableName: business, Key: { pk: key } }))).Item).toBeDefined();
  });
});
