/**
 * The claim-record strategy on SQS batches against real DynamoDB Local:
 * races, crashes, lease takeover with fencing, failures and retries.
 */
import { describe, expect, it } from 'vitest';
import { sqsEvent, Deferred, abandon } from '../../../src/testing/index.js';
import { failedIds, harness, order } from './harness.js';

describe('sqsIdempotency (claim strategy)', () => {
  it('two invocations racing on one key: one effect; the loser retries while in progress, then is acknowledged', async () => {
    const h = await harness();
    const started = new Deferred();
    const release = new Deferred();
    const slow = h.handler(async (_r, { key }) => {
      started.resolve();
      await release.promise;
      h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
    });
    const first = order('o-race');
    const second = order('o-race'); // same business key, new message id (a producer re-send)
    const firstRun = slow(sqsEvent([first]), h.context());
    await started.promise; // the first invocation holds the claim and is mid-effect
    const secondRun = h.handler()(sqsEvent([second]), h.context());
    const secondResponse = await secondRun; // really concurrent: the first has not finished
    expect(failedIds(secondResponse)).toEqual([second.messageId]);
    expect(h.lines.at(-1)?.counts['in-progress']).toBe(1);
    release.resolve();
    expect(failedIds(await firstRun)).toEqual([]);
    const redelivery = await h.handler()(sqsEvent([second]), h.context());
    expect(failedIds(redelivery)).toEqual([]);
    expect(h.lines.at(-1)?.counts.duplicate).toBe(1);
    expect(h.effects.get('o-race')).toBe(1);
  });

  it('truly simultaneous deliveries of one key: exactly one runs the effect', async () => {
    const h = await harness();
    const records = Array.from({ length: 6 }, () => order('o-burst'));
    const responses = await Promise.all(records.map((r) => h.handler()(sqsEvent([r]), h.context())));
    const acknowledged = responses.filter((r) => failedIds(r).length === 0).length;
    expect(h.effects.get('o-burst')).toBe(1);
    // One completed; each other delivery found it in progress (retried) or already completed (acknowledged).
    const counts = h.lines.map((l) => l.counts);
    expect(counts.reduce((n, c) => n + c.completed, 0)).toBe(1);
    expect(counts.reduce((n, c) => n + c['in-progress'] + c.duplicate, 0)).toBe(5);
    expect(acknowledged).toBe(1 + counts.reduce((n, c) => n + c.duplicate, 0));
  });

  it('a crash after the claim: the record is retried only once the lease has passed, then processed once', async () => {
    const h = await harness();
    const record = order('o-crash');
    // The first invocation dies mid-handler: no after, no onError, no release.
    void h.handler(async () => abandon('killed'))(sqsEvent([record]), h.context(30_000));
    await new Promise((r) => setTimeout(r, 200));
    const early = await h.handler()(sqsEvent([record]), h.context());
    expect(failedIds(early)).toEqual([record.messageId]);
    expect(h.effects.get('o-crash')).toBeUndefined();
    h.clock.advance(30_000 + 5_000 + 1); // remaining time + margin: the lease has passed
    const late = await h.handler()(sqsEvent([record]), h.context());
    expect(failedIds(late)).toEqual([]);
    expect(h.effects.get('o-crash')).toBe(1);
    const again = await h.handler()(sqsEvent([record]), h.context());
    expect(failedIds(again)).toEqual([]);
    expect(h.effects.get('o-crash')).toBe(1);
  });

  it('lease takeover + fencing: a slow invocation cannot complete over the new owner', async () => {
    const h = await harness();
    const record = order('o-slow');
    const inSlow = new Deferred();
    const finishSlow = new Deferred();
    const slowRun = h.handler(async () => {
      inSlow.resolve();
      await finishSlow.promise;
    })(sqsEvent([record]), h.context(10_000));
    await inSlow.promise;
    h.clock.advance(60_000); // the slow one's lease passes
    const takeover = await h.handler()(sqsEvent([record]), h.context());
    expect(failedIds(takeover)).toEqual([]);
    const owner = (await h.store.get(h.store.recordId('test', 'o-slow')))?.owner;
    finishSlow.resolve();
    const slowResponse = await slowRun;
    expect(failedIds(slowResponse)).toEqual([record.messageId]);
    expect(h.lines.find((l) => l.counts['lease-lost'] === 1)).toBeDefined();
    const after = await h.store.get(h.store.recordId('test', 'o-slow'));
    expect(after?.status).toBe('COMPLETED');
    expect(after?.owner).toBe(owner);
  });

  it('lease takeover + fencing: a slow invocation that fails cannot release the new owner’s claim', async () => {
    const h = await harness();
    const record = order('o-slow-fail');
    const inSlow = new Deferred();
    const finishSlow = new Deferred();
    const slowRun = h.handler(async () => {
      inSlow.resolve();
      await finishSlow.promise;
      throw new Error('slow one fails late');
    })(sqsEvent([record]), h.context(10_000));
    await inSlow.promise;
    h.clock.advance(60_000);
    const inNew = new Deferred();
    const finishNew = new Deferred();
    const newRun = h.handler(async () => {
      inNew.resolve();
      await finishNew.promise;
    })(sqsEvent([record]), h.context());
    await inNew.promise; // the new owner holds an IN_PROGRESS claim
    const id = h.store.recordId('test', 'o-slow-fail');
    const newOwner = (await h.store.get(id))?.owner;
    finishSlow.resolve();
    expect(failedIds(await slowRun)).toEqual([record.messageId]);
    const during = await h.store.get(id);
    expect(during?.status).toBe('IN_PROGRESS');
    expect(during?.owner).toBe(newOwner);
    finishNew.resolve();
    expect(failedIds(await newRun)).toEqual([]);
    expect((await h.store.get(id))?.status).toBe('COMPLETED');
  });

  it('a business failure releases the claim; the retry processes it', async () => {
    const h = await harness();
    const record = order('o-flaky');
    let calls = 0;
    const handler = h.handler(async (_r, { key }) => {
      calls += 1;
      if (calls === 1) throw new Error('payment gateway down');
      h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
    });
    expect(failedIds(await handler(sqsEvent([record]), h.context()))).toEqual([record.messageId]);
    expect(await h.store.get(h.store.recordId('test', 'o-flaky'))).toBeUndefined();
    expect(h.lines.at(-1)?.records[0]?.error?.message).toBe('payment gateway down');
    expect(failedIds(await handler(sqsEvent([record]), h.context()))).toEqual([]);
    expect(h.effects.get('o-flaky')).toBe(1);
  });

  it('release "mark-failed" keeps the attempt and the error, and the retry still claims it', async () => {
    const h = await harness({ release: 'mark-failed' });
    const record = order('o-traced');
    let calls = 0;
    const handler = h.handler(async () => {
      calls += 1;
      if (calls === 1) throw new Error('first attempt fails');
    });
    await handler(sqsEvent([record]), h.context());
    const failed = await h.store.get(h.store.recordId('test', 'o-traced'));
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(failed?.lastError).toContain('first attempt fails');
    expect(failedIds(await handler(sqsEvent([record]), h.context()))).toEqual([]);
    expect(await h.store.get(h.store.recordId('test', 'o-traced'))).toMatchObject({ status: 'COMPLETED', attempts: 2 });
  });

  it('the same business key under a new message id is a duplicate; with another payload it is flagged', async () => {
    const h = await harness();
    await h.handler()(sqsEvent([order('o-dup', { amount: 10 })]), h.context());
    const resent = order('o-dup', { amount: 10 });
    const changed = order('o-dup', { amount: 99 });
    const response = await h.handler()(sqsEvent([resent, changed]), h.context());
    expect(failedIds(response)).toEqual([changed.messageId]);
    const line = h.lines.at(-1);
    expect(line?.counts).toMatchObject({ duplicate: 1, invalid: 1 });
    expect(line?.records.find((r) => r.messageId === changed.messageId)?.error?.name).toBe('PayloadMismatchError');
    expect(h.effects.get('o-dup')).toBe(1);
  });

  it('a thrown handler releases claimed records and keeps duplicates acknowledged', async () => {
    const h = await harness();
    await h.handler()(sqsEvent([order('o-done')]), h.context());
    const dup = order('o-done');
    const fresh = order('o-fresh');
    const { default: middy } = await import('@middy/core');
    const { sqsIdempotency, jsonBody } = await import('../../../src/index.js');
    const throwing = middy()
      .use(
        sqsIdempotency({
          store: h.store,
          consumer: 'test',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: (l) => h.lines.push(l),
        }),
      )
      .handler(async () => {
        throw new Error('whole handler blew up');
      });
    const response = await throwing(sqsEvent([dup, fresh]), h.context());
    expect(failedIds(response)).toEqual([fresh.messageId]);
    expect(await h.store.get(h.store.recordId('test', 'o-fresh'))).toBeUndefined();
  });

  it('a plain handler’s own batchItemFailures are honoured', async () => {
    const h = await harness();
    const ok = order('o-plain-ok');
    const bad = order('o-plain-bad');
    const { default: middy } = await import('@middy/core');
    const { sqsIdempotency, jsonBody } = await import('../../../src/index.js');
    const plain = middy()
      .use(sqsIdempotency({ store: h.store, consumer: 'test', key: (r) => jsonBody<{ orderNo: string }>(r).orderNo, logger: false }))
      .handler(async () => ({ batchItemFailures: [{ itemIdentifier: bad.messageId }] }));
    const response = await plain(sqsEvent([ok, bad]), h.context());
    expect(failedIds(response)).toEqual([bad.messageId]);
    expect((await h.store.get(h.store.recordId('test', 'o-plain-ok')))?.status).toBe('COMPLETED');
    expect(await h.store.get(h.store.recordId('test', 'o-plain-bad'))).toBeUndefined();
  });

  it('the handler sees only the records this invocation owns', async () => {
    const h = await harness();
    await h.handler()(sqsEvent([order('o-seen')]), h.context());
    const seen: string[] = [];
    const { default: middy } = await import('@middy/core');
    const { sqsIdempotency, jsonBody } = await import('../../../src/index.js');
    const plain = middy()
      .use(sqsIdempotency({ store: h.store, consumer: 'test', key: (r) => jsonBody<{ orderNo: string }>(r).orderNo, logger: false }))
      .handler(async (event: import('aws-lambda').SQSEvent) => {
        seen.push(...event.Records.map((r) => r.body));
      });
    await plain(sqsEvent([order('o-seen'), order('o-new')]), h.context());
    expect(seen).toEqual([JSON.stringify({ orderNo: 'o-new' })]);
  });
});
