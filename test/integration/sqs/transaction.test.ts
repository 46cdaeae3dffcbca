/**
 * The transaction strategy on SQS against real DynamoDB Local: the
 * idempotency record and the handler's writes commit together or not at all.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { claim, transaction } from '../../../src/index.js';
import type { TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { abandon, sqsEvent } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { countRequests } from '../../support/store.js';
import { failedIds, harness, order } from './harness.js';

async function setup() {
  const h = await harness();
  const { client, doc } = testDynamo();
  const business = await freshTable(client, businessTable, 'biz');
  const award: TransactionRecordHandler = (_r, { key, tx }) => {
    tx.put({ TableName: business, Item: { pk: `ledger#${key}`, points: 10 }, ConditionExpression: 'attribute_not_exists(pk)' });
    tx.update({
      TableName: business,
      Key: { pk: 'customer#c1' },
      UpdateExpression: 'ADD points :p',
      ExpressionAttributeValues: { ':p': 10 },
    });
  };
  const balance = async () => (await doc.send(new GetCommand({ TableName: business, Key: { pk: 'customer#c1' } }))).Item?.['points'];
  const ledger = async (key: string) => (await doc.send(new GetCommand({ TableName: business, Key: { pk: `ledger#${key}` } }))).Item;
  return { h, doc, business, award, balance, ledger };
}

describe('sqsIdempotency (transaction strategy)', () => {
  it('commits the idempotency record and the writes in one request per fresh record', async () => {
    const { h, award, balance, ledger } = await setup();
    const requests = countRequests(h.doc);
    const handler = h.txHandler(award, { strategy: transaction() });
    const records = ['t1', 't2', 't3'].map((k) => order(k));
    expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual([]);
    expect(requests.commands).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
    expect(await balance()).toBe(30);
    expect(await ledger('t2')).toMatchObject({ points: 10 });
    expect((await h.store.get(h.store.recordId('test', 't1')))?.status).toBe('COMPLETED');
    expect(h.lines.at(-1)?.counts.completed).toBe(3);
  });

  it('a duplicate delivery leaves one effect', async () => {
    const { h, award, balance } = await setup();
    const handler = h.txHandler(award, { strategy: transaction() });
    await handler(sqsEvent([order('t-dup')]), h.context());
    const response = await handler(sqsEvent([order('t-dup')]), h.context());
    expect(failedIds(response)).toEqual([]);
    expect(h.lines.at(-1)?.counts.duplicate).toBe(1);
    expect(await balance()).toBe(10);
  });

  it('two concurrent deliveries of one key: one effect', async () => {
    const { h, award, balance } = await setup();
    const handler = h.txHandler(award, { strategy: transaction() });
    const responses = await Promise.all(Array.from({ length: 5 }, () => handler(sqsEvent([order('t-race')]), h.context())));
    expect(await balance()).toBe(10);
    // Losers are duplicates (acknowledged) or transaction conflicts (retried); never a second effect.
    const outcomes = h.lines.flatMap((l) => l.records.map((r) => r.outcome));
    expect(outcomes.filter((o) => o === 'completed')).toHaveLength(1);
    const acked = responses.filter((r) => failedIds(r).length === 0).length;
    expect(acked).toBe(outcomes.filter((o) => o === 'completed' || o === 'duplicate').length);
  });

  it('a crash between the handler and the commit leaves no effect and no record', async () => {
    const { h, award, balance, ledger } = await setup();
    void h.txHandler(
      async (r, ctx) => {
        await award(r, ctx);
        await abandon('killed before commit');
      },
      { strategy: transaction() },
    )(sqsEvent([order('t-crash')]), h.context());
    await new Promise((r) => setTimeout(r, 200));
    expect(await balance()).toBeUndefined();
    expect(await ledger('t-crash')).toBeUndefined();
    expect(await h.store.get(h.store.recordId('test', 't-crash'))).toBeUndefined();
    // No claim was left behind: the retry runs at once, no lease to wait for.
    expect(failedIds(await h.txHandler(award, { strategy: transaction() })(sqsEvent([order('t-crash')]), h.context()))).toEqual([]);
    expect(await balance()).toBe(10);
  });

  it('a business condition failure leaves neither the effect nor the idempotency record', async () => {
    const { h, doc, business, award, balance } = await setup();
    await doc.send(new PutCommand({ TableName: business, Item: { pk: 'ledger#t-conflict', points: 999 } }));
    const record = order('t-conflict');
    const response = await h.txHandler(award, { strategy: transaction() })(sqsEvent([record]), h.context());
    expect(failedIds(response)).toEqual([record.messageId]);
    expect(h.lines.at(-1)?.records[0]).toMatchObject({ outcome: 'conflict', error: { name: 'BusinessConflictError' } });
    expect(await balance()).toBeUndefined();
    expect(await h.store.get(h.store.recordId('test', 't-conflict'))).toBeUndefined();
    const final = await h.txHandler(award, { strategy: transaction({ onConflict: 'acknowledge' }) })(sqsEvent([record]), h.context());
    expect(failedIds(final)).toEqual([]);
  });

  it('a handler that adds no writes still records the idempotency item', async () => {
    const { h } = await setup();
    let sent = 0;
    const notify = h.handler(
      () => {
        sent += 1;
      },
      { strategy: transaction() },
    );
    await notify(sqsEvent([order('t-notify')]), h.context());
    await notify(sqsEvent([order('t-notify')]), h.context());
    expect((await h.store.get(h.store.recordId('test', 't-notify')))?.status).toBe('COMPLETED');
    expect(h.lines.at(-1)?.counts.duplicate).toBe(1);
    expect(sent).toBe(2); // the handler runs; only its writes are deduplicated (documented)
  });

  it('a transaction over the limits fails that record alone, before anything is sent', async () => {
    const { h, business } = await setup();
    const tooMany: TransactionRecordHandler = (_r, { key, tx }) => {
      if (key !== 't-many') return;
      for (let i = 0; i < 100; i++) tx.put({ TableName: business, Item: { pk: `many#${i}` } });
    };
    const many = order('t-many');
    const fine = order('t-fine');
    const response = await h.txHandler(tooMany, { strategy: transaction() })(sqsEvent([many, fine]), h.context());
    expect(failedIds(response)).toEqual([many.messageId]);
    expect(h.lines.at(-1)?.records.find((r) => r.messageId === many.messageId)?.error?.name).toBe('TransactionLimitError');
  });

  it('eachRecord.inTransaction under the claim strategy runs no record: each comes back with a TypeError naming both fixes', async () => {
    const { h, balance } = await setup();
    let runs = 0;
    const record = order('t-wrong');
    const response = await h.txHandler(
      (_r, { tx }) => {
        runs += 1;
        tx.put({ TableName: 'never', Item: { pk: 'x' } });
      },
      { strategy: claim() },
    )(sqsEvent([record]), h.context());
    expect(failedIds(response)).toEqual([record.messageId]);
    expect(runs).toBe(0);
    expect(h.lines.at(-1)?.records[0]?.error).toMatchObject({
      name: 'TypeError',
      message: expect.stringMatching(
        /^eachRecord\.inTransaction: the strategy of sqsIdempotency is not transaction\(\).*Use sqsIdempotency\(\{ strategy: transaction\(\) \}\), or eachRecord\(fn\) \(no tx\)/,
      ),
    });
    // Released, not left IN_PROGRESS until its lease: the retry runs at once (and fails the same way until fixed).
    expect(await h.store.get(h.store.recordId('test', 't-wrong'))).toBeUndefined();
    expect(await balance()).toBeUndefined();
  });

  it('plain eachRecord under transaction() runs the handler with no tx; its commit writes the idempotency record alone', async () => {
    const { h, balance } = await setup();
    const seen: string[][] = [];
    const handler = h.handler((_r, ctx) => void seen.push(Object.keys(ctx).sort()), { strategy: transaction() });
    expect(failedIds(await handler(sqsEvent([order('t-plain')]), h.context()))).toEqual([]);
    expect(seen).toEqual([['attempt', 'context', 'key', 'messageId', 'signal']]);
    expect((await h.store.get(h.store.recordId('test', 't-plain')))?.status).toBe('COMPLETED');
    expect(await balance()).toBeUndefined();
    // A duplicate is acknowledged.
    expect(failedIds(await handler(sqsEvent([order('t-plain')]), h.context()))).toEqual([]);
    expect(h.lines.at(-1)?.counts.duplicate).toBe(1);
  });
});
