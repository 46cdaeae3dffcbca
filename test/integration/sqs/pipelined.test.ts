/**
 * `strategy: claim({ pipelined: true })` (claim strategy, with eachRecord): each record starts
 * as soon as its own claim returns, on DynamoDB Local. A slow claim is made
 * slow by a store wrapper that holds it until the test lets it go, so "before
 * the other claims returned" is an ordering, not a timing.
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jsonBody, sqsIdempotency, type IdempotencyStore, claim, transaction } from '../../../src/index.js';
import type { ClaimInput } from '../../../src/engine/store.js';
import { Deferred, sqsEvent } from '../../../src/testing/index.js';
import { failedIds, harness, order, type Harness } from './harness.js';

/** The harness store, with the claim of `slowKey` held until `release` resolves. */
function slowClaims(h: Harness, slowKey: string, release: Promise<void>, claimed: string[]): IdempotencyStore {
  const store = h.store;
  return {
    recordId: (consumer, key) => store.recordId(consumer, key),
    async claim(input: ClaimInput) {
      if (input.key === slowKey) await release;
      const result = await store.claim(input);
      claimed.push(input.key);
      return result;
    },
    complete: (input) => store.complete(input),
    release: (input) => store.release(input),
    get: (id) => store.get(id),
  };
}

describe('sqsIdempotency claims: "pipelined"', () => {
  it('a record runs as soon as its own claim returns, before a slower claim of the batch has returned', async () => {
    const h = await harness();
    const release = new Deferred();
    const claimed: string[] = [];
    const store = slowClaims(h, 'o-slow', release.promise, claimed);
    const fastDone = new Deferred();
    const handler = h.handler(
      async (_r, { key }) => {
        h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
        if (key === 'o-fast') fastDone.resolve();
      },
      { store, strategy: claim({ pipelined: true }) },
    );
    const slow = order('o-slow');
    const fast = order('o-fast');
    const run = handler(sqsEvent([slow, fast]), h.context());
    await fastDone.promise; // with the whole batch claimed first, this would wait for o-slow's claim forever
    expect(claimed).toEqual(['o-fast']);
    expect(h.effects.get('o-slow')).toBeUndefined();
    release.resolve();
    expect(failedIds(await run)).toEqual([]);
    expect(Object.fromEntries(h.effects)).toEqual({ 'o-fast': 1, 'o-slow': 1 });
    expect(h.lines.at(-1)?.counts.completed).toBe(2);
    // Both were completed in the store: a redelivery is a duplicate, not run again.
    expect(
      failedIds(
        await h.handler(undefined, { strategy: claim({ pipelined: true }) })(sqsEvent([order('o-slow'), order('o-fast')]), h.context()),
      ),
    ).toEqual([]);
    expect(h.lines.at(-1)?.counts.duplicate).toBe(2);
    expect(Object.fromEntries(h.effects)).toEqual({ 'o-fast': 1, 'o-slow': 1 });
  });

  it('duplicates, in-progress keys, a failing record and two copies of one key keep their outcomes', async () => {
    const h = await harness();
    const handler = h.handler(
      async (_r, { key }) => {
        if (key === 'o-bad') throw new Error('boom');
        h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
      },
      { strategy: claim({ pipelined: true }) },
    );
    expect(failedIds(await handler(sqsEvent([order('o-done')]), h.context()))).toEqual([]);
    const held = await h.store.claim({ consumer: 'test', key: 'o-held', leaseMs: 60_000 });
    expect(held.kind).toBe('claimed');
    const dup = order('o-done');
    const bad = order('o-bad');
    const inProgress = order('o-held');
    const first = order('o-twice');
    const copy = order('o-twice');
    const response = await handler(sqsEvent([dup, bad, inProgress, first, copy, order('o-new')]), h.context());
    expect(failedIds(response).sort()).toEqual([bad.messageId, inProgress.messageId].sort());
    expect(Object.fromEntries(h.effects)).toEqual({ 'o-done': 1, 'o-twice': 1, 'o-new': 1 });
    const counts = h.lines.at(-1)?.counts;
    expect(counts?.duplicate).toBe(2); // o-done, and the copy of o-twice
    expect(counts?.['in-progress']).toBe(1);
    expect(counts?.failed).toBe(1);
    // The failed record's claim was released: its retry runs at once.
    expect(failedIds(await h.handler(undefined, { strategy: claim({ pipelined: true }) })(sqsEvent([bad]), h.context()))).toEqual([]);
    expect(h.effects.get('o-bad')).toBe(1);
  });

  it('a handler without eachRecord sees no records; every record comes back, none acknowledged, claims released', async () => {
    const h = await harness();
    expect(
      failedIds(await h.handler(undefined, { strategy: claim({ pipelined: true }) })(sqsEvent([order('o-old')]), h.context())),
    ).toEqual([]);
    const seen: string[] = [];
    const plain = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store: h.store,
          consumer: 'test',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          strategy: claim({ pipelined: true }),
          logger: (line) => h.lines.push(line),
        }),
      )
      .handler(async (event) => {
        for (const r of event.Records) seen.push(r.messageId);
        return { batchItemFailures: [] };
      });
    const records = [order('o-a'), order('o-b'), order('o-old')];
    const response = await plain(sqsEvent(records), h.context());
    expect(seen).toEqual([]);
    expect(failedIds(response).sort()).toEqual(records.map((r) => r.messageId).sort());
    expect(h.lines.at(-1)?.counts.failed).toBe(3);
    // Released, not left in progress: the retry through eachRecord runs them now.
    expect(failedIds(await h.handler(undefined, { strategy: claim({ pipelined: true }) })(sqsEvent(records), h.context()))).toEqual([]);
    expect(Object.fromEntries(h.effects)).toEqual({ 'o-old': 1, 'o-a': 1, 'o-b': 1 });
  });

  it('FIFO batches keep their order (claimed as a batch) and stop a group at its first failure', async () => {
    const h = await harness();
    const order_: string[] = [];
    const handler = h.handler(
      async (_r, { key }) => {
        order_.push(key);
        if (key === 'f-2') throw new Error('boom');
      },
      { strategy: claim({ pipelined: true }) },
    );
    const records = [order('f-1', {}, { groupId: 'g' }), order('f-2', {}, { groupId: 'g' }), order('f-3', {}, { groupId: 'g' })];
    const response = await handler(sqsEvent(records), h.context());
    expect(order_).toEqual(['f-1', 'f-2']);
    expect(failedIds(response)).toEqual([records[1]?.messageId, records[2]?.messageId]);
  });

  it('is checked when the middleware is built', async () => {
    const h = await harness();
    const base = { store: h.store, consumer: 'test', key: (r: { body: string }) => r.body };
    expect(() => claim({ pipelined: 'eager' as never })).toThrow(/claim\(\): option "pipelined"/);
    // A claim's setting is claim()'s, not the middleware's. A transaction has no pipelined setting at all.
    expect(() => sqsIdempotency({ ...base, claims: 'pipelined' } as never)).toThrow(TypeError);
    expect(() => sqsIdempotency({ ...base, claims: 'pipelined' } as never)).toThrow('sqsIdempotency: unknown option "claims"');
    expect(() => transaction({ pipelined: true } as never)).toThrow(/transaction\(\): unknown option "pipelined"/);
    // The heartbeat renews claims it knows the tokens of; pipelined claims learn theirs only as each returns.
    expect(() => claim({ pipelined: true, heartbeat: true } as never)).toThrow(TypeError);
    expect(() => claim({ pipelined: true, heartbeat: true } as never)).toThrow(/"pipelined".*heartbeat/);
    // Written by hand, the pair has no claim() to refuse it, and the object no steps: the middleware refuses it.
    const handMade = { kind: 'claim', pipelined: true, heartbeat: true } as never;
    expect(() => sqsIdempotency({ ...base, strategy: handMade })).toThrow(
      'option "strategy" must be what claim() or transaction() returns',
    );
    expect(() => sqsIdempotency({ ...base, strategy: claim({ pipelined: true, heartbeat: false }) })).not.toThrow();
  });
});
