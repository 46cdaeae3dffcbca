/**
 * Batch behaviour of the SQS middleware: FIFO groups, bad records failing
 * alone, deadline awareness, option checking and the log line.
 */
import { describe, expect, it } from 'vitest';
import { sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { sqsIdempotency } from '../../../src/index.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import { countRequests } from '../../support/store.js';
import { failedIds, harness, order } from './harness.js';

describe('sqsIdempotency batches', () => {
  it('FIFO: a failure mid-group fails and releases the rest of that group; other groups go on, in order', async () => {
    const h = await harness();
    const a = ['a1', 'a2', 'a3', 'a4'].map((k) => order(k, {}, { groupId: 'A' }));
    const b = ['b1', 'b2', 'b3'].map((k) => order(k, {}, { groupId: 'B' }));
    const batch = [a[0], b[0], a[1], b[1], a[2], b[2], a[3]].filter((r) => r !== undefined);
    const calls: string[] = [];
    const fn: RecordHandler = async (_r, { key }) => {
      calls.push(key);
      await new Promise((r) => setTimeout(r, 5));
      if (key === 'a2') throw new Error('a2 fails');
    };
    const response = await h.handler(fn, {}, { concurrency: 4 })(sqsEvent(batch), h.context());
    expect(failedIds(response).sort()).toEqual([a[1], a[2], a[3]].map((r) => r?.messageId).sort());
    expect(calls.filter((k) => k.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(calls.filter((k) => k.startsWith('b'))).toEqual(['b1', 'b2', 'b3']);
    for (const key of ['a2', 'a3', 'a4']) expect(await h.store.get(h.store.recordId('test', key))).toBeUndefined();
    for (const key of ['a1', 'b1', 'b2', 'b3']) {
      expect((await h.store.get(h.store.recordId('test', key)))?.status).toBe('COMPLETED');
    }
    expect(h.lines.at(-1)?.counts).toMatchObject({ completed: 4, failed: 1, 'not-started': 2 });
  });

  it('FIFO: a record that fails before the handler (in progress elsewhere) holds back the rest of its group', async () => {
    const h = await harness();
    const blocker = order('g1', {}, { groupId: 'G' });
    await h.store.claim({ consumer: 'test', key: 'g1', leaseMs: 60_000 }); // another invocation holds g1
    const next = order('g2', {}, { groupId: 'G' });
    const other = order('h1', {}, { groupId: 'H' });
    const response = await h.handler()(sqsEvent([blocker, next, other]), h.context());
    expect(failedIds(response).sort()).toEqual([blocker.messageId, next.messageId].sort());
    expect(h.effects.get('g2')).toBeUndefined();
    expect(h.effects.get('h1')).toBe(1);
    expect(await h.store.get(h.store.recordId('test', 'g2'))).toBeUndefined();
  });

  it('malformed body and missing key fail alone; an oversized result completes without it', async () => {
    const h = await harness();
    const good = order('o-good');
    const malformed = sqsRecord({ body: '{not json' });
    const noKey = sqsRecord({ body: JSON.stringify({ amount: 3 }) });
    const huge = order('o-huge');
    const fn: RecordHandler = (_r, { key }) => (key === 'o-huge' ? 'x'.repeat(450 * 1024) : 'small result');
    const response = await h.handler(fn, { storeResult: true })(sqsEvent([good, malformed, noKey, huge]), h.context());
    expect(failedIds(response).sort()).toEqual([malformed.messageId, noKey.messageId].sort());
    const errors = Object.fromEntries(h.lines.at(-1)?.records.map((r) => [r.messageId, r.error?.name ?? r.resultNotStored?.name]) ?? []);
    expect(errors[malformed.messageId]).toBe('BodyParseError');
    expect(errors[noKey.messageId]).toBe('MissingKeyError');
    expect(errors[huge.messageId]).toBe('ItemTooLargeError');
    expect((await h.store.get(h.store.recordId('test', 'o-good')))?.result).toBe('small result');
    // The oversized effect happened: it is recorded (without its result) so it never runs twice.
    const hugeRecord = await h.store.get(h.store.recordId('test', 'o-huge'));
    expect(hugeRecord?.status).toBe('COMPLETED');
    expect(hugeRecord?.result).toBeUndefined();
    const redelivered = await h.handler(fn, { storeResult: true })(sqsEvent([huge]), h.context());
    expect(failedIds(redelivered)).toEqual([]);
  });

  it('copies of one key in the same batch follow the first: acknowledged with it, retried with it, flagged if different', async () => {
    const h = await harness();
    const first = order('k-same', { amount: 1 });
    const copy = order('k-same', { amount: 1 });
    const changed = order('k-same', { amount: 2 });
    const response = await h.handler()(sqsEvent([first, copy, changed]), h.context());
    expect(failedIds(response)).toEqual([changed.messageId]);
    expect(h.effects.get('k-same')).toBe(1);
    expect(h.lines.at(-1)?.counts).toMatchObject({ completed: 1, duplicate: 1, invalid: 1, 'in-progress': 0 });

    const failing = order('k-fails');
    const failingCopy = order('k-fails');
    const failed = await h.handler(() => {
      throw new Error('down');
    })(sqsEvent([failing, failingCopy]), h.context());
    expect(failedIds(failed)).toEqual([failing.messageId, failingCopy.messageId]);
    expect(h.lines.at(-1)?.records.find((r) => r.messageId === failingCopy.messageId)?.reason).toBe('same-key-failed');
  });

  it('deadline reached mid-batch: unstarted records are reported failed and released', async () => {
    const h = await harness();
    const records = ['d1', 'd2', 'd3', 'd4'].map((k) => order(k));
    const fn: RecordHandler = (_r, { key }) => {
      h.effects.set(key, 1);
      h.clock.advance(4_000); // each record takes 4 s of a 10 s budget
    };
    const response = await h.handler(fn, { safetyMarginMs: 3_000 }, { concurrency: 1 })(sqsEvent(records), h.context(10_000));
    expect([...h.effects.keys()]).toEqual(['d1', 'd2']);
    expect(failedIds(response)).toEqual([records[2]?.messageId, records[3]?.messageId]);
    for (const key of ['d3', 'd4']) expect(await h.store.get(h.store.recordId('test', key))).toBeUndefined();
    const line = h.lines.at(-1);
    expect(line?.records.filter((r) => r.reason === 'deadline')).toHaveLength(2);
  });

  it('hashKeys: the raw business key is stored nowhere and logged nowhere', async () => {
    const h = await harness({ hashKeys: true });
    await h.handler()(sqsEvent([order('alice@example.com')]), h.context());
    const id = h.store.recordId('test', 'alice@example.com');
    expect(id).not.toContain('alice');
    expect(JSON.stringify(await h.store.get(id))).not.toContain('alice');
    expect(JSON.stringify(h.lines)).not.toContain('alice');
  });

  it('the warm-container cache answers a repeated duplicate without a request', async () => {
    const h = await harness({ cache: { maxEntries: 100 } });
    await h.handler()(sqsEvent([order('o-warm')]), h.context());
    const requests = countRequests(h.doc);
    await h.handler()(sqsEvent([order('o-warm')]), h.context());
    expect(requests.commands).toEqual([]);
    expect(h.lines.at(-1)?.records[0]).toMatchObject({ outcome: 'duplicate', replay: true });
    expect(h.effects.get('o-warm')).toBe(1);
  });

  it('one structured log line per batch with counts and retried total', async () => {
    const h = await harness();
    await h.handler()(sqsEvent([order('l1'), order('l2'), sqsRecord({ body: 'nope' })]), h.context());
    expect(h.lines).toHaveLength(1);
    expect(h.lines[0]).toMatchObject({
      level: 'WARN',
      message: 'effectively-once',
      source: 'sqs',
      consumer: 'test',
      strategy: 'claim',
      retried: 1,
    });
    expect(h.lines[0]?.counts).toMatchObject({ completed: 2, invalid: 1 });
  });

  it('a wrong event shape is a clear TypeError', async () => {
    const h = await harness();
    const handler = h.handler();
    await expect(handler({ detail: {} } as never, h.context())).rejects.toThrow(/not an SQS event/);
  });

  it('options are checked when the middleware is built', async () => {
    const h = await harness();
    const key = () => 'k';
    expect(() => sqsIdempotency({ store: h.store, key, concurency: 3 } as never)).toThrow(/unknown option "concurency"/);
    expect(() => sqsIdempotency({ store: h.store, key: 'orderNo' } as never)).toThrow(/option "key" must be a function/);
    expect(() => sqsIdempotency({ key } as never)).toThrow(/option "store" is required/);
    expect(() => sqsIdempotency({ store: h.store, key, strategy: 'magic' } as never)).toThrow(/option "strategy"/);
    expect(() => sqsIdempotency({ store: h.store, key, lease: { floorMs: 10, capMs: 5 } })).toThrow(/option "lease"/);
    expect(() => sqsIdempotency({ store: h.store, key, safetyMarginMs: -1 })).toThrow(TypeError);
  });
});
