/**
 * Two invocations of ONE handler in flight at once in one process (Lambda
 * Managed Instances run several invocations per process): batches that share
 * business keys, a handler that waits on a Deferred so both are inside it at
 * the same time. No per-invocation state may be shared: each key's effect
 * runs once, the invocation that lost a key's claim returns its copy (in
 * progress), and each response and log line names only its own records;
 * when the winner fails, the loser's retry runs the key once; one SQS message
 * delivered to both at once runs once. Then an invocation that overran its lease while another took its key over:
 * its completion is refused (fencing), the new owner's record stands.
 * The invocation's state lives under Middy's `request.internal` and is found
 * by `eachRecord` through marks on the event, the context and the records:
 * Middy 6 shares `internal` between requests when the plugin seeds it, and a
 * record's mark must not outlive its invocation.
 */
import middy from '@middy/core';
import middy6 from 'middy-core-6';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { claim, eachRecord, jsonBody, sqsIdempotency } from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { ClaimsMode } from '../../support/strategy.js';
import { Deferred, lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

const FIFO_ARN = 'arn:aws:sqs:us-east-1:123456789012:overlap.fifo';

function setUp(claims: ClaimsMode, shareInternal = false) {
  const clock = new ManualClock();
  const store = new MemoryIdempotencyStore({ clock });
  const lines: BatchLogLine[] = [];
  const effects = new Map<string, number>();
  const calls: string[] = [];
  const entered = new Map<string, Deferred>();
  const gates = new Map<string, Deferred>();
  const enteredBy = (id: string) => entered.get(id) ?? (entered.set(id, new Deferred()).get(id) as Deferred);
  const gateOf = (id: string) => gates.get(id) ?? (gates.set(id, new Deferred()).get(id) as Deferred);
  const middleware = sqsIdempotency({
    store,
    consumer: 'overlap',
    key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
    logger: (line) => lines.push(line),
    strategy: claim({ pipelined: claims === 'pipelined' }),
  });
  const perRecord = eachRecord(async (record: SQSRecord, { key }) => {
    calls.push(record.messageId);
    enteredBy(record.messageId).resolve();
    await gateOf(record.messageId).promise;
    effects.set(key, (effects.get(key) ?? 0) + 1);
  });
  // Middy 6 seeds every request with the plugin's own `internal` object, shared by overlapping requests.
  const six = middy6<SQSEvent, SQSBatchResponse>({ internal: {} }).use(middleware).handler(perRecord);
  const seven = middy<SQSEvent, SQSBatchResponse>().use(middleware).handler(perRecord);
  const handler = async (event: SQSEvent, context: Context) =>
    (await (shareInternal ? six(event, context) : seven(event, context))) as SQSBatchResponse;
  const context = () => lambdaContext({ clock, timeoutMs: 60_000, functionName: 'overlap-fn' });
  return { clock, store, lines, effects, calls, handler, context, enteredBy, gateOf };
}

function batch(ids: readonly string[], fifo: boolean): SQSRecord[] {
  // Message id "k2@b": key k2, from batch b; on FIFO each key is its own group, so groups interleave across batches.
  return ids.map((id) => {
    const key = id.split('@')[0] as string;
    const body = JSON.stringify({ orderNo: key });
    return fifo ? sqsRecord({ body, messageId: id, queueArn: FIFO_ARN, groupId: key }) : sqsRecord({ body, messageId: id });
  });
}

const lineOf = (lines: readonly BatchLogLine[], id: string) => lines.find((l) => l.records.some((r) => r.messageId === id));
const outcomes = (line: BatchLogLine | undefined) => Object.fromEntries((line?.records ?? []).map((r) => [r.messageId, r.outcome]));

const variants = (['batch', 'pipelined'] as const).flatMap((claims) =>
  [false, true].flatMap((fifo) => [false, true].map((sharedContext) => ({ claims, fifo, sharedContext }))),
);

describe('the invocation object: where it is kept and where eachRecord finds it', () => {
  it.each(['batch', 'pipelined'] as const)(
    'Middy 6 with a seeded internal shared by both requests: each invocation settles its own records (%s claims)',
    async (claims) => {
      const t = setUp(claims, true);
      const first = t.handler(sqsEvent(batch(['k1@a', 'k2@a'], false)), t.context());
      await Promise.all([t.enteredBy('k1@a').promise, t.enteredBy('k2@a').promise]);
      const second = t.handler(sqsEvent(batch(['k2@b', 'k3@b'], false)), t.context());
      await t.enteredBy('k3@b').promise;
      t.gateOf('k1@a').reject(new Error('k1 failed in batch a'));
      for (const id of ['k2@a', 'k3@b']) t.gateOf(id).resolve();
      const [r1, r2] = await Promise.all([first, second]);
      expect(r1.batchItemFailures).toEqual([{ itemIdentifier: 'k1@a' }]);
      expect(r2.batchItemFailures).toEqual([{ itemIdentifier: 'k2@b' }]);
      expect(outcomes(lineOf(t.lines, 'k1@a'))).toEqual({ 'k1@a': 'failed', 'k2@a': 'completed' });
      expect(outcomes(lineOf(t.lines, 'k3@b'))).toEqual({ 'k2@b': 'in-progress', 'k3@b': 'completed' });
      expect(t.lines).toHaveLength(2);
      expect(Object.fromEntries(t.effects)).toEqual({ k2: 1, k3: 1 });
    },
  );

  it('an answered invocation leaves no mark: its records and context, reused by a plain eachRecord, run plainly', async () => {
    const t = setUp('batch');
    const records = batch(['k1@a', 'k2@a'], false);
    const context = t.context();
    t.gateOf('k1@a').resolve();
    t.gateOf('k2@a').resolve();
    expect((await t.handler(sqsEvent(records), context)).batchItemFailures).toEqual([]);
    const keys: string[] = [];
    const plain = eachRecord((_record, { key }) => void keys.push(key));
    // The same record objects and context, with no middleware in front: keyed by message id, not by the answered invocation.
    expect(await plain(sqsEvent(records), context)).toEqual({ batchItemFailures: [] });
    expect(keys).toEqual(['k1@a', 'k2@a']);
    expect(Object.getOwnPropertySymbols(context)).toEqual([]);
    expect(records.flatMap((r) => Object.getOwnPropertySymbols(r))).toEqual([]);
  });
});

describe('two overlapping invocations of one handler, batches sharing keys', () => {
  it.each(variants)(
    'the second starts while the first is inside the handler ($claims claims, FIFO $fifo, shared context $sharedContext)',
    async ({ claims, fifo, sharedContext }) => {
      const t = setUp(claims);
      const one = t.context();
      const ctx = (): Context => (sharedContext ? one : t.context());
      const b1 = ['k1@a', 'k2@a', 'k3@a'];
      const b2 = ['k2@b', 'k3@b', 'k4@b'];
      const first = t.handler(sqsEvent(batch(b1, fifo)), ctx());
      await Promise.all(b1.map((id) => t.enteredBy(id).promise)); // every claim of batch a is held, its handlers wait
      const second = t.handler(sqsEvent(batch(b2, fifo)), ctx());
      await t.enteredBy('k4@b').promise; // batch b is in flight too
      for (const id of [...b1, ...b2]) t.gateOf(id).resolve();
      const [r1, r2] = await Promise.all([first, second]);

      expect(r1.batchItemFailures).toEqual([]);
      expect(r2.batchItemFailures).toEqual([{ itemIdentifier: 'k2@b' }, { itemIdentifier: 'k3@b' }]);
      expect(outcomes(lineOf(t.lines, 'k1@a'))).toEqual({ 'k1@a': 'completed', 'k2@a': 'completed', 'k3@a': 'completed' });
      expect(outcomes(lineOf(t.lines, 'k4@b'))).toEqual({ 'k2@b': 'in-progress', 'k3@b': 'in-progress', 'k4@b': 'completed' });
      expect(t.lines).toHaveLength(2);
      expect([...t.calls].sort()).toEqual(['k1@a', 'k2@a', 'k3@a', 'k4@b']);
      expect(Object.fromEntries(t.effects)).toEqual({ k1: 1, k2: 1, k3: 1, k4: 1 });

      // The queue redelivers what batch b returned: the keys are done now, so they are acknowledged without running.
      const retry = await t.handler(sqsEvent(batch(['k2@b', 'k3@b'], fifo)), t.context());
      expect(retry.batchItemFailures).toEqual([]);
      expect(outcomes(t.lines.at(-1))).toEqual({ 'k2@b': 'duplicate', 'k3@b': 'duplicate' });
      expect(Object.fromEntries(t.effects)).toEqual({ k1: 1, k2: 1, k3: 1, k4: 1 });
    },
  );

  it.each(variants)(
    'both start at once: every shared key is won by exactly one of them ($claims claims, FIFO $fifo, shared context $sharedContext)',
    async ({ claims, fifo, sharedContext }) => {
      const t = setUp(claims);
      const one = t.context();
      const ctx = (): Context => (sharedContext ? one : t.context());
      const b1 = ['k1@a', 'k2@a', 'k3@a'];
      const b2 = ['k3@b', 'k2@b', 'k4@b'];
      const both = Promise.all([t.handler(sqsEvent(batch(b1, fifo)), ctx()), t.handler(sqsEvent(batch(b2, fifo)), ctx())]);
      await Promise.all([t.enteredBy('k1@a').promise, t.enteredBy('k4@b').promise]); // both are inside the handler
      for (const id of [...b1, ...b2]) t.gateOf(id).resolve();
      const [r1, r2] = await both;

      const returned1 = r1.batchItemFailures.map((f) => f.itemIdentifier);
      const returned2 = r2.batchItemFailures.map((f) => f.itemIdentifier);
      expect(returned1.every((id) => b1.includes(id)) && returned2.every((id) => b2.includes(id))).toBe(true);
      const a = outcomes(lineOf(t.lines, 'k1@a'));
      const b = outcomes(lineOf(t.lines, 'k4@b'));
      expect(Object.keys(a).sort()).toEqual([...b1].sort());
      expect(Object.keys(b).sort()).toEqual([...b2].sort());
      expect([a['k1@a'], b['k4@b']]).toEqual(['completed', 'completed']);
      for (const key of ['k2', 'k3']) {
        const pair = [a[`${key}@a`], b[`${key}@b`]].sort();
        expect(pair, key).toEqual(['completed', 'in-progress']);
        const loser = a[`${key}@a`] === 'in-progress' ? `${key}@a` : `${key}@b`;
        expect(
          [...returned1, ...returned2].filter((id) => id.startsWith(`${key}@`)),
          key,
        ).toEqual([loser]);
        expect(t.calls, `${key}: the loser never ran`).not.toContain(loser);
      }
      expect(Object.fromEntries(t.effects)).toEqual({ k1: 1, k2: 1, k3: 1, k4: 1 });
    },
  );
});

describe('overlapping invocations: the winner fails, or both got the same message', () => {
  it.each(variants)(
    'the winner of a shared key fails: the loser returned its copy, and the retry runs it once ($claims claims, FIFO $fifo, shared context $sharedContext)',
    async ({ claims, fifo, sharedContext }) => {
      const t = setUp(claims);
      const one = t.context();
      const ctx = (): Context => (sharedContext ? one : t.context());
      const first = t.handler(sqsEvent(batch(['k1@a', 'k2@a'], fifo)), ctx());
      await Promise.all([t.enteredBy('k1@a').promise, t.enteredBy('k2@a').promise]);
      const second = t.handler(sqsEvent(batch(['k2@b', 'k3@b'], fifo)), ctx());
      await t.enteredBy('k3@b').promise;
      t.gateOf('k2@a').reject(new Error('k2 failed in batch a'));
      for (const id of ['k1@a', 'k3@b', 'k2@b']) t.gateOf(id).resolve();
      const [r1, r2] = await Promise.all([first, second]);
      expect(r1.batchItemFailures).toEqual([{ itemIdentifier: 'k2@a' }]);
      expect(r2.batchItemFailures).toEqual([{ itemIdentifier: 'k2@b' }]);
      expect(outcomes(lineOf(t.lines, 'k1@a'))).toEqual({ 'k1@a': 'completed', 'k2@a': 'failed' });
      expect(outcomes(lineOf(t.lines, 'k3@b'))).toEqual({ 'k2@b': 'in-progress', 'k3@b': 'completed' });
      expect(t.effects.get('k2')).toBeUndefined();

      // Both copies come back; whichever runs first applies k2 once, the other is its duplicate.
      const retryB = await t.handler(sqsEvent(batch(['k2@b'], fifo)), t.context());
      const retryA = await t.handler(sqsEvent(batch(['k2@a'], fifo)), t.context());
      expect([retryB.batchItemFailures, retryA.batchItemFailures]).toEqual([[], []]);
      expect([outcomes(t.lines.at(-2)), outcomes(t.lines.at(-1))]).toEqual([{ 'k2@b': 'completed' }, { 'k2@a': 'duplicate' }]);
      expect(Object.fromEntries(t.effects)).toEqual({ k1: 1, k2: 1, k3: 1 });
    },
  );

  it.each(variants)(
    'one SQS message delivered to both at once (its visibility timeout passed): it runs once ($claims claims, FIFO $fifo, shared context $sharedContext)',
    async ({ claims, fifo, sharedContext }) => {
      const t = setUp(claims);
      const one = t.context();
      const ctx = (): Context => (sharedContext ? one : t.context());
      const [shared] = batch(['k2@both'], fifo) as [SQSRecord];
      const first = t.handler(sqsEvent([...batch(['k1@a'], fifo), shared]), ctx());
      await Promise.all([t.enteredBy('k1@a').promise, t.enteredBy('k2@both').promise]);
      const second = t.handler(sqsEvent([{ ...shared, receiptHandle: 'second-receive' }, ...batch(['k3@b'], fifo)]), ctx());
      await t.enteredBy('k3@b').promise;
      for (const id of ['k1@a', 'k2@both', 'k3@b']) t.gateOf(id).resolve();
      const [r1, r2] = await Promise.all([first, second]);
      expect(r1.batchItemFailures).toEqual([]);
      expect(r2.batchItemFailures).toEqual([{ itemIdentifier: 'k2@both' }]);
      expect(t.calls.filter((id) => id === 'k2@both')).toHaveLength(1);
      expect(t.lines.map((l) => outcomes(l))).toEqual(
        expect.arrayContaining([
          { 'k1@a': 'completed', 'k2@both': 'completed' },
          { 'k2@both': 'in-progress', 'k3@b': 'completed' },
        ]),
      );
      expect(t.lines).toHaveLength(2);
      expect(Object.fromEntries(t.effects)).toEqual({ k1: 1, k2: 1, k3: 1 });
    },
  );
});

describe('fencing across overlapping invocations', () => {
  it.each(['batch', 'pipelined'] as const)(
    "an invocation that overran its lease cannot complete over the new owner's record (%s claims)",
    async (claims) => {
      const t = setUp(claims);
      const slow = t.handler(sqsEvent(batch(['K@a'], false)), t.context());
      await t.enteredBy('K@a').promise;
      t.clock.advance(65_001); // past its lease: remaining 60 s + the 5 s margin
      t.gateOf('K@b').resolve();
      const takeover = await t.handler(sqsEvent(batch(['K@b'], false)), t.context());
      expect(takeover.batchItemFailures).toEqual([]);
      expect(outcomes(t.lines.at(-1))).toEqual({ 'K@b': 'completed' });

      t.gateOf('K@a').resolve(); // the slow handler finishes late (its effect ran: the lease was too short for it)
      const late = await slow;
      expect(late.batchItemFailures).toEqual([{ itemIdentifier: 'K@a' }]);
      expect(outcomes(t.lines.at(-1))).toEqual({ 'K@a': 'lease-lost' });
      const record = await t.store.get(t.store.recordId('overlap', 'K'));
      expect({ status: record?.status, messageId: record?.messageId }).toEqual({ status: 'COMPLETED', messageId: 'K@b' });

      const redelivered = await t.handler(sqsEvent(batch(['K@a'], false)), t.context());
      expect(redelivered.batchItemFailures).toEqual([]);
      expect(outcomes(t.lines.at(-1))).toEqual({ 'K@a': 'duplicate' });
      expect(t.effects.get('K')).toBe(2); // the new owner's and the overrunning one's: why long effects want `lease.heartbeat`
    },
  );
});

describe('the view of the context the batch middleware hands the handler', () => {
  it('a call with no Lambda context at all still runs each record under the invocation (found through the event)', async () => {
    const store = new MemoryIdempotencyStore();
    const keys: string[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, consumer: 'bare', key: (r) => jsonBody<{ k: string }>(r).k, logger: false }))
      .handler(eachRecord((_record, { key }) => void keys.push(key)));
    const records = [sqsRecord({ body: '{"k":"a"}' }), sqsRecord({ body: '{"k":"b"}' })];
    expect(await handler(sqsEvent(records), undefined as unknown as Context)).toEqual({ batchItemFailures: [] });
    expect(keys.sort()).toEqual(['a', 'b']);
    expect((await store.get(store.recordId('bare', 'a')))?.status).toBe('COMPLETED');
  });

  it('reads and writes through to the caller’s context, and a copy of it still leads to the invocation', async () => {
    const store = new MemoryIdempotencyStore();
    const context = lambdaContext();
    const seen: { waits: boolean; name: string }[] = [];
    const keys: string[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, consumer: 'view', key: (r) => jsonBody<{ k: string }>(r).k, logger: false }))
      .before((request) => {
        request.context.callbackWaitsForEmptyEventLoop = false;
      })
      .handler(async (event, ctx) => {
        seen.push({ waits: ctx.callbackWaitsForEmptyEventLoop, name: ctx.functionName });
        // A copy, as a middleware or the handler may make: the link comes with it.
        return eachRecord((_record, { key }) => void keys.push(key))(event, { ...ctx }) as Promise<SQSBatchResponse>;
      });
    expect(await handler(sqsEvent([sqsRecord({ body: '{"k":"c"}' })]), context)).toEqual({ batchItemFailures: [] });
    expect(context.callbackWaitsForEmptyEventLoop).toBe(false);
    expect(seen).toEqual([{ waits: false, name: context.functionName }]);
    expect(keys).toEqual(['c']);
    expect(Object.getOwnPropertySymbols(context)).toEqual([]);
  });
});
