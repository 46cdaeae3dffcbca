/**
 * The default payload check of SQS bodies against real DynamoDB Local: a JSON
 * body is compared as the JSON value it holds (key order and spacing do not
 * count; every number exactly as written), any other body as its text; and
 * records written by 0.1.0 (a bare SHA-256 of the raw body) are not compared.
 */
import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { failedIds, harness, type Harness } from './harness.js';
import { strategyOf } from '../../support/strategy.js';

/** A record under business key `k` whatever its body (JSON or not). */
const raw = (body: string): SQSRecord => sqsRecord({ body });
const fixedKey = { key: () => 'k' };

/** Delivers `first`, then `then` (one batch each); returns the outcome of each record of the second batch. */
async function secondOutcomes(h: Harness, first: SQSRecord, then: SQSRecord[], options: Parameters<Harness['handler']>[1] = {}) {
  const handler = h.handler(undefined, options);
  expect(failedIds(await handler(sqsEvent([first]), h.context()))).toEqual([]);
  await handler(sqsEvent(then), h.context());
  return (h.lines.at(-1)?.records ?? []).map((r) => (r.error === undefined ? r.outcome : `${r.outcome}:${r.error.name}`));
}

describe('SQS default payload check', () => {
  for (const strategy of ['claim', 'transaction'] as const) {
    it(`${strategy}: the same JSON object re-sent with another key order or spacing is a duplicate, not a mismatch`, async () => {
      const h = await harness();
      const first = raw('{"orderNo":"o-1","amount":10,"lines":[{"sku":"a","qty":1}]}');
      const reordered = raw('{ "lines": [ { "qty": 1, "sku": "a" } ], "amount": 10.0, "orderNo": "o-1" }\n');
      const outcomes = await secondOutcomes(h, first, [reordered], { strategy: strategyOf(strategy) });
      expect(outcomes).toEqual(['duplicate']);
      // The transaction strategy runs the handler before its commit finds the duplicate; only the claim strategy skips it.
      if (strategy === 'claim') expect(h.effects.get('o-1')).toBe(1);
    });

    it(`${strategy}: a real change of content under the same key is still flagged, digits beyond float precision included`, async () => {
      const h = await harness();
      const first = raw('{"orderNo":"o-2","id":12345678901234567890}');
      const changed = raw('{"orderNo":"o-2","id":12345678901234567891}');
      expect(JSON.parse(first.body)).toEqual(JSON.parse(changed.body)); // why: JSON.parse alone would merge them
      const outcomes = await secondOutcomes(h, first, [changed], { strategy: strategyOf(strategy) });
      expect(outcomes).toEqual(['invalid:PayloadMismatchError']);
    });
  }

  it('a JSON scalar is its value: 5 and " 5 " are one payload; "5" (a JSON string) and 5 are two', async () => {
    const h = await harness();
    expect(await secondOutcomes(h, raw('5'), [raw(' 5 \n')], fixedKey)).toEqual(['duplicate']);
    expect(await secondOutcomes(await harness(), raw('5'), [raw('"5"')], fixedKey)).toEqual(['invalid:PayloadMismatchError']);
  });

  it('a body that is not JSON is compared as text, and never equals the JSON string of that text', async () => {
    expect(await secondOutcomes(await harness(), raw('abc'), [raw('abc')], fixedKey)).toEqual(['duplicate']);
    expect(await secondOutcomes(await harness(), raw('abc'), [raw('abc ')], fixedKey)).toEqual(['invalid:PayloadMismatchError']);
    expect(await secondOutcomes(await harness(), raw('"abc"'), [raw('abc')], fixedKey)).toEqual(['invalid:PayloadMismatchError']);
  });

  it('payload: (r) => r.body still compares the raw text', async () => {
    const h = await harness();
    const options = { payload: (r: SQSRecord) => r.body };
    const outcomes = await secondOutcomes(h, raw('{"orderNo":"o-3","a":1}'), [raw('{"a":1,"orderNo":"o-3"}')], options);
    expect(outcomes).toEqual(['invalid:PayloadMismatchError']);
  });

  it('copies of one key in one batch are compared the same way', async () => {
    const h = await harness();
    const first = raw('{"orderNo":"o-4","amount":1}');
    const copies = [raw('{"orderNo":"o-4","amount":2}'), raw('{"orderNo":"o-5","amount":1}'), raw('{"amount":1, "orderNo":"o-5"}')];
    const outcomes = await secondOutcomes(h, first, copies);
    expect(outcomes).toEqual(['invalid:PayloadMismatchError', 'completed', 'duplicate']);
  });
});

describe('records written by 0.1.0 (payload hash = SHA-256 of the raw body)', () => {
  /** Rewrites the stored hash of `key` the way 0.1.0 wrote it. */
  async function legacyHash(h: Harness, key: string, body: string): Promise<void> {
    const payloadHash = createHash('sha256').update(body).digest('hex');
    await h.doc.send(
      new UpdateCommand({
        TableName: h.table,
        Key: { id: h.store.recordId('test', key) },
        UpdateExpression: 'SET payloadHash = :h',
        ExpressionAttributeValues: { ':h': payloadHash },
      }),
    );
  }

  for (const strategy of ['claim', 'transaction'] as const) {
    it(`${strategy}: a redelivery is acknowledged as a duplicate, not flagged, whatever its body`, async () => {
      const h = await harness();
      const handler = h.handler(undefined, { strategy: strategyOf(strategy) });
      const body = '{"orderNo":"o-old","amount":10}';
      await handler(sqsEvent([raw(body)]), h.context());
      await legacyHash(h, 'o-old', body);
      const again = [raw(body), raw('{"amount":10,"orderNo":"o-old"}')];
      expect(failedIds(await handler(sqsEvent([again[0] as SQSRecord]), h.context()))).toEqual([]);
      expect(failedIds(await handler(sqsEvent([again[1] as SQSRecord]), h.context()))).toEqual([]);
      expect(h.lines.slice(-2).map((l) => l.counts.duplicate)).toEqual([1, 1]);
      if (strategy === 'claim') expect(h.effects.get('o-old')).toBe(1); // (the transaction strategy runs the handler, then finds the duplicate)
      expect((await h.store.get(h.store.recordId('test', 'o-old')))?.payloadHash).toMatch(/^[0-9a-f]{64}$/); // left as it was
    });
  }
});
