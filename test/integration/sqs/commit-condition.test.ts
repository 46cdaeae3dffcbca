/**
 * The transaction strategy's idempotency Put, against DynamoDB Local: a
 * commit first sends the fresh-key condition alone (`attribute_not_exists`,
 * cheaper for DynamoDB Local to evaluate in every transaction item:
 * bench/probe-transactions.ts); a record it refuses that the full "key is
 * free" rule would take (FAILED, a claim whose lease passed) is committed
 * again under the full rule, so the outcome is what the full rule gives.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { transaction } from '../../../src/index.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { rawItem } from '../../support/store.js';
import { failedIds, harness, order } from './harness.js';

/** The idempotency Puts' conditions of every TransactWriteItems sent, one list per request. */
function watchPuts(doc: DynamoDBDocumentClient, table: string): string[][] {
  const sent: string[][] = [];
  doc.middlewareStack.add(
    (next) => async (args) => {
      const items = (args.input as { TransactItems?: Array<{ Put?: { TableName?: string; ConditionExpression?: string } }> }).TransactItems;
      if (items !== undefined) sent.push(items.flatMap((a) => (a.Put?.TableName === table ? [a.Put.ConditionExpression ?? ''] : [])));
      return next(args);
    },
    { step: 'initialize', name: 'watchPuts' },
  );
  return sent;
}

const FRESH = 'attribute_not_exists(#id)';

describe('transaction strategy: the idempotency condition', () => {
  for (const commit of ['group', 'record'] as const) {
    it(`commit "${commit}": a fresh key is committed under the fresh-key condition alone`, async () => {
      const h = await harness();
      const puts = watchPuts(h.doc, h.table);
      const handler = h.handler(undefined, { strategy: transaction({ commit }) });
      expect(failedIds(await handler(sqsEvent([order('n1'), order('n2')]), h.context()))).toEqual([]);
      expect(puts.flat()).toEqual([FRESH, FRESH]);
      expect(h.effects.get('n1')).toBe(1);
    });

    it(`commit "${commit}": a FAILED record and a claim whose lease passed are refused by it, then committed under the full rule`, async () => {
      const h = await harness({ release: 'mark-failed' });
      const failed = await h.store.claim({ consumer: 'test', key: 'f1', leaseMs: 60_000 });
      if (failed.kind !== 'claimed') throw new Error(failed.kind);
      await h.store.release({ id: failed.id, token: failed.token, error: new Error('earlier failure') });
      expect((await rawItem(h.doc, h.table, { id: failed.id }))?.['status']).toBe('FAILED');
      await h.store.claim({ consumer: 'test', key: 'x1', leaseMs: 1_000 });
      h.clock.advance(5_000);
      const puts = watchPuts(h.doc, h.table);
      const handler = h.handler(undefined, { strategy: transaction({ commit, probeDuplicates: 'never' }) });
      const records = [order('f1'), order('x1'), order('n1')];
      expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual([]);
      expect(h.lines.at(-1)?.counts.completed).toBe(3);
      expect((await h.store.get(h.store.recordId('test', 'f1')))?.status).toBe('COMPLETED');
      expect((await h.store.get(h.store.recordId('test', 'x1')))?.status).toBe('COMPLETED');
      for (const k of ['f1', 'x1', 'n1']) expect(h.effects.get(k)).toBe(1);
      // Each of the two went again, alone, under the full rule.
      const full = puts.filter((p) => p.length === 1 && p[0] !== FRESH);
      expect(full).toHaveLength(2);
    });
  }

  it('a FAILED record the probe found is committed under the full rule at once', async () => {
    const h = await harness({ release: 'mark-failed' });
    const failed = await h.store.claim({ consumer: 'test', key: 'f1', leaseMs: 60_000 });
    if (failed.kind !== 'claimed') throw new Error(failed.kind);
    await h.store.release({ id: failed.id, token: failed.token, error: new Error('earlier failure') });
    const puts = watchPuts(h.doc, h.table);
    const handler = h.handler(undefined, { strategy: transaction({ probeDuplicates: 'always' }) });
    expect(failedIds(await handler(sqsEvent([order('f1'), order('n1')]), h.context()))).toEqual([]);
    expect(puts).toHaveLength(1);
    expect(puts[0]?.filter((c) => c === FRESH)).toHaveLength(1);
    expect(h.effects.get('f1')).toBe(1);
  });

  it('a COMPLETED record refused by it is a duplicate, as before: the effect is not applied again', async () => {
    const h = await harness();
    const handler = h.handler(undefined, { strategy: transaction({ probeDuplicates: 'never' }) });
    await handler(sqsEvent([order('d1')]), h.context());
    const puts = watchPuts(h.doc, h.table);
    expect(failedIds(await handler(sqsEvent([order('d1'), order('n1')]), h.context()))).toEqual([]);
    expect(h.lines.at(-1)?.counts).toMatchObject({ duplicate: 1, completed: 1 });
    // The cancelled group, then n1 again: no resend under the full rule for a duplicate.
    expect(puts.map((p) => p.length)).toEqual([2, 1]);
  });
});
