/**
 * Group commit (issue 12, item 1) against DynamoDB Local: the records of a
 * batch commit together, in as few `TransactWriteItems` as the limits allow,
 * each record atomic on its own and with the outcome its own commit gives.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sqsIdempotency, transaction } from '../../../src/index.js';
import type { TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { injectDynamoDBFaults, sqsEvent } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { countRequests } from '../../support/store.js';
import { failedIds, harness, order } from './harness.js';

async function setup() {
  const h = await harness();
  const { client, doc } = testDynamo();
  const business = await freshTable(client, businessTable, 'biz');
  const runs = new Map<string, number>();
  /** Each record: its ledger line (must not exist) and one point on `counter#<shared ?? key>`. */
  const award: TransactionRecordHandler = (record, { key, tx }) => {
    runs.set(key, (runs.get(key) ?? 0) + 1);
    const body = JSON.parse(record.body) as { shared?: string; extra?: number; blocked?: boolean };
    tx.put({ TableName: business, Item: { pk: `ledger#${key}`, points: 1 }, ConditionExpression: 'attribute_not_exists(pk)' });
    tx.update({
      TableName: business,
      Key: { pk: `counter#${body.shared ?? key}` },
      UpdateExpression: 'ADD points :p',
      ExpressionAttributeValues: { ':p': 1 },
    });
    if (body.blocked === true) {
      tx.conditionCheck({ TableName: business, Key: { pk: `gate#${key}` }, ConditionExpression: 'attribute_exists(pk)' });
    }
    for (let i = 0; i < (body.extra ?? 0); i++) tx.put({ TableName: business, Item: { pk: `extra#${key}#${i}` } });
  };
  const item = async (pk: string) =>
    (await doc.send(new GetCommand({ TableName: business, Key: { pk }, ConsistentRead: true }))).Item as
      | Record<string, unknown>
      | undefined;
  const points = async (pk: string) => (await item(`counter#${pk}`))?.['points'];
  return { h, doc, business, award, runs, item, points };
}

const keys = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const outcomeOf = (line: { records: ReadonlyArray<{ messageId: string; outcome: string }> } | undefined, r: SQSRecord) =>
  line?.records.find((x) => x.messageId === r.messageId)?.outcome;

describe('sqsIdempotency, transaction strategy: group commit', () => {
  it('a clean batch of 10 commits in one TransactWriteItems; commit: "record" sends one per record', async () => {
    const { h, award, points } = await setup();
    const requests = countRequests(h.doc);
    const grouped = h.txHandler(award, { strategy: transaction() });
    expect(failedIds(await grouped(sqsEvent(keys(10, 'g').map((k) => order(k))), h.context()))).toEqual([]);
    expect(requests.commands).toEqual(['TransactWriteItemsCommand']);
    expect(h.lines.at(-1)?.counts.completed).toBe(10);
    for (const k of keys(10, 'g')) expect(await points(k)).toBe(1);

    const perRecord = h.txHandler(award, { strategy: transaction({ commit: 'record' }) });
    expect(failedIds(await perRecord(sqsEvent(keys(10, 'r').map((k) => order(k))), h.context()))).toEqual([]);
    expect(requests.commands.length).toBe(11);
    expect(h.lines.at(-1)?.counts.completed).toBe(10);
  });

  it('records whose items overlap go into different groups, one after the other; every effect is applied once', async () => {
    const { h, award, points, item } = await setup();
    const requests = countRequests(h.doc);
    const handler = h.txHandler(award, { strategy: transaction() });
    const records = [order('o1', { shared: 'hot' }), order('o2'), order('o3', { shared: 'hot' }), order('o4', { shared: 'hot' })];
    expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual([]);
    // o1 + o2, then o3, then o4: never two transactions on `counter#hot` at once.
    expect(requests.commands).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
    expect(await points('hot')).toBe(3);
    expect(await points('o2')).toBe(1);
    expect(await item('ledger#o4')).toMatchObject({ points: 1 });
    expect(h.lines.at(-1)?.counts.completed).toBe(4);
  });

  it('more than 100 actions are split into groups of at most 100, committed side by side', async () => {
    const { h, award, item } = await setup();
    const sent: number[] = [];
    h.doc.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { TransactItems?: unknown[] };
        if (input.TransactItems !== undefined) sent.push(input.TransactItems.length);
        return next(args);
      },
      { step: 'initialize', name: 'countActions' },
    );
    const handler = h.txHandler(award, { strategy: transaction() });
    // 10 records of 30 actions each (idempotency Put, ledger, counter, 27 extra): 300 actions.
    const records = keys(10, 'big').map((k) => order(k, { extra: 27 }));
    expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual([]);
    expect(sent.every((n) => n <= 100)).toBe(true);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(300);
    expect(sent.length).toBe(4);
    expect(await item('extra#big9#26')).toBeDefined();
    expect(h.lines.at(-1)?.counts.completed).toBe(10);
  });

  it('a duplicate in the middle of a group is acknowledged and does not fail the others', async () => {
    const { h, award, points, runs } = await setup();
    const handler = h.txHandler(award, { strategy: transaction() });
    await handler(sqsEvent([order('d4')]), h.context());
    const requests = countRequests(h.doc);
    const records = keys(8, 'd').map((k) => order(k));
    const response = await handler(sqsEvent(records), h.context());
    expect(failedIds(response)).toEqual([]);
    // The group is cancelled by d4's idempotency Put; the 7 others go again together.
    expect(requests.commands).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
    expect(outcomeOf(h.lines.at(-1), records[4] as SQSRecord)).toBe('duplicate');
    expect(h.lines.at(-1)?.counts.completed).toBe(7);
    expect(await points('d4')).toBe(1);
    expect(await points('d7')).toBe(1);
    expect(runs.get('d4')).toBe(2);
  });

  it('a business-condition failure fails that record alone (nothing of it written); the others commit', async () => {
    const { h, award, points, item } = await setup();
    const handler = h.txHandler(award, { strategy: transaction() });
    const records = [order('b1'), order('b2', { blocked: true }), order('b3')];
    const response = await handler(sqsEvent(records), h.context());
    expect(failedIds(response)).toEqual([records[1]?.messageId]);
    expect(outcomeOf(h.lines.at(-1), records[1] as SQSRecord)).toBe('conflict');
    expect(await item('ledger#b2')).toBeUndefined();
    expect(await h.store.get(h.store.recordId('test', 'b2'))).toBeUndefined();
    expect(await points('b1')).toBe(1);
    expect(await points('b3')).toBe(1);
  });

  it('a TransactionConflict on a group is retried within the invocation; the handlers run once', async () => {
    const { h, award, points, runs } = await setup();
    const faults = injectDynamoDBFaults(h.doc, {
      rules: [{ fault: 'transaction-conflict', commands: ['TransactWriteItems'], calls: [1] }],
    });
    const handler = h.txHandler(award, { strategy: transaction() });
    const records = keys(5, 'c').map((k) => order(k));
    expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual([]);
    expect(faults.injected()['transaction-conflict']).toBe(1);
    expect(h.lines.at(-1)?.counts.completed).toBe(5);
    for (const k of keys(5, 'c')) {
      expect(await points(k)).toBe(1);
      expect(runs.get(k)).toBe(1);
    }
  });

  it('FIFO: an earlier record that does not commit sends its group’s later records back unrun and uncommitted; other groups commit', async () => {
    const { h, award, points, runs, item } = await setup();
    const handler = h.txHandler(award, { strategy: transaction() });
    const records = [
      order('f-a1', { blocked: true }, { groupId: 'A' }),
      order('f-b1', {}, { groupId: 'B' }),
      order('f-a2', {}, { groupId: 'A' }),
      order('f-b2', {}, { groupId: 'B' }),
    ];
    const response = await handler(sqsEvent(records), h.context());
    expect(failedIds(response)).toEqual([records[0]?.messageId, records[2]?.messageId]);
    expect(outcomeOf(h.lines.at(-1), records[0] as SQSRecord)).toBe('conflict');
    expect(outcomeOf(h.lines.at(-1), records[2] as SQSRecord)).toBe('not-started');
    expect(runs.get('f-a2')).toBeUndefined();
    expect(await item('ledger#f-a2')).toBeUndefined();
    expect(await points('f-b1')).toBe(1);
    expect(await points('f-b2')).toBe(1);
  });

  it('two invocations racing over the same keys, both group-committing: exactly one effect per key', async () => {
    const { h, award, points } = await setup();
    const handler = h.txHandler(award, { strategy: transaction() });
    const batch = () => sqsEvent(keys(10, 'x').map((k) => order(k)));
    const [first, second] = await Promise.all([handler(batch(), h.context()), handler(batch(), h.context())]);
    for (const k of keys(10, 'x')) expect(await points(k)).toBe(1);
    const outcomes = h.lines.flatMap((l) => l.records.map((r) => r.outcome));
    expect(outcomes.filter((o) => o === 'completed')).toHaveLength(10);
    // A loser is a duplicate (acknowledged) or comes back (a live conflict); never acknowledged without an effect.
    expect(failedIds(first).length + failedIds(second).length).toBe(outcomes.filter((o) => o !== 'completed' && o !== 'duplicate').length);
  });

  it('the commit option is checked when transaction() or the middleware is built', async () => {
    const { h } = await setup();
    expect(() => transaction({ commit: 'batch' as never })).toThrow(/transaction\(\): option "commit"/);
    expect(() => sqsIdempotency({ store: h.store, key: () => 'k', commit: 'record' } as never)).toThrow(
      'sqsIdempotency: unknown option "commit"',
    );
  });
});
