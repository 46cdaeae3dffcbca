/**
 * Red-team combinations for group commit (transaction strategy) against
 * DynamoDB Local: one batch mixing a record with no writes, one over the
 * 100-action limit, records sharing an item, a PermanentError sent to a
 * (scripted) DLQ, a stored duplicate and a business-condition failure; FIFO
 * groups with a PermanentError in the middle; contention that never ends.
 * Each checks the outcomes, what was written, and that the EMF metrics
 * document counts what the log line says.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { deadLetter, emfMetrics, PermanentError, transaction } from '../../../src/index.js';
import { outcomeMetricNames, type EmfDocument } from '../../../src/observe/emf.js';
import type { TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { injectDynamoDBFaults, sqsEvent } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { failedIds, harness, order } from './harness.js';

type Body = { shared?: string; extra?: number; blocked?: boolean; none?: boolean; permanent?: boolean };

async function setup() {
  const h = await harness();
  const { client, doc } = testDynamo();
  const business = await freshTable(client, businessTable, 'gcx');
  const runs = new Map<string, number>();
  const award: TransactionRecordHandler = (record, { key, tx }) => {
    runs.set(key, (runs.get(key) ?? 0) + 1);
    const body = JSON.parse(record.body) as Body;
    if (body.permanent === true) throw new PermanentError(`no template for ${key}`);
    if (body.none === true) return 'notified';
    tx.put({ TableName: business, Item: { pk: `ledger#${key}` }, ConditionExpression: 'attribute_not_exists(pk)' });
    tx.update({
      TableName: business,
      Key: { pk: `counter#${body.shared ?? key}` },
      UpdateExpression: 'ADD points :p',
      ExpressionAttributeValues: { ':p': 1 },
    });
    if (body.blocked === true)
      tx.conditionCheck({ TableName: business, Key: { pk: `gate#${key}` }, ConditionExpression: 'attribute_exists(pk)' });
    for (let i = 0; i < (body.extra ?? 0); i++) tx.put({ TableName: business, Item: { pk: `extra#${key}#${i}` } });
    return undefined;
  };
  const item = async (pk: string) =>
    (await doc.send(new GetCommand({ TableName: business, Key: { pk }, ConsistentRead: true }))).Item as
      | Record<string, unknown>
      | undefined;
  const docs: EmfDocument[] = [];
  const dlqSent: string[] = [];
  const sqs = {
    send: async (command: { input: { Entries?: Array<{ Id: string; MessageBody: string }> } }) => {
      const entries = command.input.Entries ?? [];
      dlqSent.push(...entries.map((e) => e.MessageBody));
      return { Successful: entries.map((e) => ({ Id: e.Id, MessageId: `dlq-${e.Id}`, MD5OfMessageBody: '' })), Failed: [] };
    },
  } as unknown as SQSClient;
  const options = {
    strategy: transaction(),
    deadLetter: deadLetter({ sqs, dlqUrl: 'https://sqs.local/dlq' }),
    metrics: emfMetrics({ emit: (d: EmfDocument) => docs.push(d) }),
  };
  return { h, award, runs, item, docs, dlqSent, options };
}

const outcomes = (line: { records: ReadonlyArray<{ messageId: string; outcome: string }> } | undefined, records: SQSRecord[]) =>
  records.map((r) => line?.records.find((x) => x.messageId === r.messageId)?.outcome);

function metricsMatchLog(docs: readonly EmfDocument[], line: { records: ReadonlyArray<{ outcome: string }> } | undefined): void {
  const doc = docs.at(-1);
  for (const [kind, name] of Object.entries(outcomeMetricNames)) {
    expect(doc?.[name], name).toBe((line?.records ?? []).filter((r) => r.outcome === kind).length);
  }
}

describe('group commit in combination', () => {
  it('no writes, over 100 actions, a shared item, a PermanentError, a duplicate and a conflict in one batch', async () => {
    const { h, award, runs, item, docs, dlqSent, options } = await setup();
    const handler = h.txHandler(award, options);
    await handler(sqsEvent([order('x-dup')]), h.context());
    const records = [
      order('x-none', { none: true }),
      order('x-huge', { extra: 100 }),
      order('x-s1', { shared: 'x-shared' }),
      order('x-s2', { shared: 'x-shared' }),
      order('x-perm', { permanent: true }),
      order('x-dup'),
      order('x-gate', { blocked: true }),
      order('x-ok'),
    ];
    const response = await handler(sqsEvent(records), h.context());
    const line = h.lines.at(-1);
    expect(outcomes(line, records)).toEqual([
      'completed',
      'failed',
      'completed',
      'completed',
      'dead-lettered',
      'duplicate',
      'conflict',
      'completed',
    ]);
    expect(failedIds(response)).toEqual([records[1]?.messageId, records[6]?.messageId]);
    expect(line?.records.find((r) => r.messageId === records[1]?.messageId)?.error?.name).toBe('TransactionLimitError');
    // The record with no writes is deduplicated all the same; the huge one and the refused one wrote nothing.
    expect((await h.store.get(h.store.recordId('test', 'x-none')))?.status).toBe('COMPLETED');
    expect(await h.store.get(h.store.recordId('test', 'x-huge'))).toBeUndefined();
    expect(await item('extra#x-huge#0')).toBeUndefined();
    expect(await item('ledger#x-gate')).toBeUndefined();
    expect(await h.store.get(h.store.recordId('test', 'x-perm'))).toBeUndefined();
    expect((await item('counter#x-shared'))?.['points']).toBe(2);
    expect((await item('counter#x-ok'))?.['points']).toBe(1);
    expect((await item('counter#x-dup'))?.['points']).toBe(1);
    expect(dlqSent).toEqual([records[4]?.body]);
    expect(runs.get('x-s1')).toBe(1);
    metricsMatchLog(docs, line);
  });

  it('FIFO: a PermanentError in the middle of a group is dead-lettered; its later records come back unrun; other groups commit', async () => {
    const { h, award, runs, item, docs, dlqSent, options } = await setup();
    const records = [
      order('y-a1', {}, { groupId: 'A' }),
      order('y-b1', {}, { groupId: 'B' }),
      order('y-a2', { permanent: true }, { groupId: 'A' }),
      order('y-b2', {}, { groupId: 'B' }),
      order('y-a3', {}, { groupId: 'A' }),
      order('y-a3', {}, { groupId: 'A' }),
    ];
    const response = await h.txHandler(award, options)(sqsEvent(records), h.context());
    const line = h.lines.at(-1);
    expect(outcomes(line, records)).toEqual(['completed', 'completed', 'dead-lettered', 'completed', 'not-started', 'not-started']);
    expect(failedIds(response)).toEqual([records[4]?.messageId, records[5]?.messageId]);
    expect(runs.get('y-a3')).toBeUndefined();
    expect(await item('ledger#y-a3')).toBeUndefined();
    expect((await item('counter#y-b2'))?.['points']).toBe(1);
    expect(dlqSent).toEqual([records[2]?.body]);
    metricsMatchLog(docs, line);
  });

  it('contention that never ends: every record comes back uncommitted, the handlers ran once, nothing is dead-lettered', async () => {
    const { h, award, runs, item, docs, dlqSent, options } = await setup();
    injectDynamoDBFaults(h.doc, { rules: [{ fault: 'transaction-conflict', commands: ['TransactWriteItems'], probability: 1 }] });
    const records = [order('z-1'), order('z-2', { shared: 'z-shared' }), order('z-3', { shared: 'z-shared' })];
    const response = await h.txHandler(award, options)(sqsEvent(records), h.context());
    const line = h.lines.at(-1);
    expect(failedIds(response)).toEqual(records.map((r) => r.messageId));
    expect(outcomes(line, records)).toEqual(['failed', 'failed', 'failed']);
    expect(line?.records.every((r) => r.error?.name === 'TransactionRetryableError')).toBe(true);
    for (const k of ['z-1', 'z-2', 'z-3']) {
      expect(runs.get(k)).toBe(1);
      expect(await h.store.get(h.store.recordId('test', k))).toBeUndefined();
    }
    expect(await item('counter#z-shared')).toBeUndefined();
    expect(dlqSent).toEqual([]);
    metricsMatchLog(docs, line);
  });
});
