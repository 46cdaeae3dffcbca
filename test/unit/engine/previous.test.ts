/**
 * The cutover's decisions (engine/previous.ts), on a MemoryIdempotencyStore through the public SQS middleware: a
 * record about to run is first decided from what the previous library recorded of it (here a reader written against
 * the port, standing in for Powertools' table, which test/integration/powertools/ reads for real).
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { claim, eachRecord, jsonBody, sqsIdempotency } from '../../../src/index.js';
import { previousRecords, type PreviousFinding, type PreviousRecordsReader } from '../../../src/engine/previous.js';
import { KeyFunctionError, PayloadMismatchError } from '../../../src/engine/errors.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

const CONSUMER = 'cutover';
const WINDOW_MS = 60 * 60_000;

/** The previous library's records by business key, and the keys it was asked for. */
function previousLibrary(clock: ManualClock, findings: Record<string, PreviousFinding | Error>) {
  const asked: string[] = [];
  const reader: PreviousRecordsReader<SQSRecord> = {
    library: 'Old',
    untilMs: clock.now() + WINDOW_MS,
    clock,
    async find(record) {
      const key = jsonBody<{ orderNo: string }>(record).orderNo;
      asked.push(key);
      const found = findings[key] ?? { kind: 'none' };
      if (found instanceof Error) throw found;
      return found;
    },
  };
  return { asked, previous: previousRecords(reader) };
}

function consumer(findings: Record<string, PreviousFinding | Error>, options: { pipelined?: boolean; storeResult?: boolean } = {}) {
  const clock = new ManualClock();
  const store = new MemoryIdempotencyStore({ clock });
  const { asked, previous } = previousLibrary(clock, findings);
  const effects: string[] = [];
  const lines: BatchLogLine[] = [];
  const handler = middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: CONSUMER,
        key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
        previous,
        logger: (line) => lines.push(line),
        storeResult: options.storeResult ?? false,
        ...(options.pipelined === true ? { strategy: claim({ pipelined: true }) } : {}),
      }),
    )
    .handler(eachRecord(async (record) => void effects.push(jsonBody<{ orderNo: string }>(record).orderNo)));
  const deliver = async (...keys: string[]) => {
    const records = keys.map((k, i) => sqsRecord({ body: JSON.stringify({ orderNo: k }), messageId: `m-${k}-${i}`, clock }));
    const response = await handler(sqsEvent(records), lambdaContext({ clock, timeoutMs: 30_000 }));
    return response.batchItemFailures.map((f) => f.itemIdentifier);
  };
  const recordOf = (key: string) => store.get(store.recordId(CONSUMER, key));
  const outcomes = () => (lines.at(-1)?.records ?? []).map((r) => r.outcome);
  return { clock, store, asked, effects, deliver, recordOf, outcomes, lines };
}

describe('a cutover from another library’s records (the previous option)', () => {
  for (const pipelined of [false, true]) {
    describe(pipelined ? 'pipelined claims' : 'batch claims', () => {
      it('acknowledges a record the previous library completed without running it, and completes ours', async () => {
        const c = consumer({ done: { kind: 'completed' } }, { pipelined });
        expect(await c.deliver('done', 'fresh')).toEqual([]);
        expect(c.effects).toEqual(['fresh']);
        expect((await c.recordOf('done'))?.status).toBe('COMPLETED');
        expect(c.outcomes()).toEqual(['duplicate', 'completed']);
        // Ours from now on: the next delivery is our duplicate, and the previous library is not asked again.
        expect(await c.deliver('done')).toEqual([]);
        expect(c.asked).toEqual(['done', 'fresh']);
      });

      it('sends back a record the previous library still holds, releasing our claim, and runs it once that claim is over', async () => {
        const findings: Record<string, PreviousFinding> = { held: { kind: 'in-progress', untilMs: Date.UTC(2025, 0, 1, 0, 5) } };
        const c = consumer(findings, { pipelined });
        expect(await c.deliver('held')).toEqual(['m-held-0']);
        expect(c.effects).toEqual([]);
        expect(await c.recordOf('held')).toBeUndefined(); // released: nothing of ours holds the key
        expect(c.outcomes()).toEqual(['in-progress']);
        findings['held'] = { kind: 'none' }; // the previous claim expired, unfinished
        expect(await c.deliver('held')).toEqual([]);
        expect(c.effects).toEqual(['held']);
      });
    });
  }

  it('decides a later copy of the key in the batch from its first copy (a duplicate too)', async () => {
    const c = consumer({ done: { kind: 'completed' } });
    expect(await c.deliver('done', 'done')).toEqual([]);
    expect(c.effects).toEqual([]);
    expect(c.asked).toEqual(['done']);
    expect(c.outcomes()).toEqual(['duplicate', 'duplicate']);
  });

  it('refuses a record recorded with another payload as invalid, and releases our claim', async () => {
    const c = consumer({ other: { kind: 'mismatch', detail: 'hash a, delivery b' } });
    expect(await c.deliver('other')).toEqual(['m-other-0']);
    expect(c.effects).toEqual([]);
    expect(await c.recordOf('other')).toBeUndefined();
    expect(c.outcomes()).toEqual(['invalid']);
  });

  it('fails a record whose previous record cannot be read (retried), and one whose key function threw (invalid)', async () => {
    const c = consumer({ throttled: new Error('ThrottlingException'), bad: new KeyFunctionError('no orderNo') });
    expect(await c.deliver('throttled', 'bad', 'fine')).toEqual(['m-throttled-0', 'm-bad-1']);
    expect(c.effects).toEqual(['fine']);
    expect(c.outcomes()).toEqual(['failed', 'invalid', 'completed']);
    expect(await c.recordOf('throttled')).toBeUndefined();
  });

  it('reads nothing after the window: every record runs as usual', async () => {
    const c = consumer({ done: { kind: 'completed' } });
    c.clock.advance(WINDOW_MS);
    expect(await c.deliver('done')).toEqual([]);
    expect(c.asked).toEqual([]);
    expect(c.effects).toEqual(['done']);
  });

  it('keeps the previous library’s stored result on our record with storeResult', async () => {
    const c = consumer({ done: { kind: 'completed', result: { receipt: 'r-1' } } }, { storeResult: true });
    await c.deliver('done');
    expect((await c.recordOf('done'))?.result).toEqual({ receipt: 'r-1' });
    const without = consumer({ done: { kind: 'completed', result: { receipt: 'r-1' } } });
    await without.deliver('done');
    expect((await without.recordOf('done'))?.result).toBeUndefined();
  });
});

describe('previousRecords().decide for a record that holds no claim (transaction strategy)', () => {
  const owned = (store: MemoryIdempotencyStore, key: string) => ({ messageId: `m-${key}`, key, id: store.recordId(CONSUMER, key) });

  it('writes our record COMPLETED for a completed one, and nothing for a held one', async () => {
    const clock = new ManualClock();
    const store = new MemoryIdempotencyStore({ clock });
    const findings: Record<string, PreviousFinding> = {
      done: { kind: 'completed' },
      held: { kind: 'in-progress', untilMs: clock.now() + 1_000 },
    };
    const { previous } = previousLibrary(clock, findings);
    const use = { store, consumer: CONSUMER, leaseMs: 30_000, storeResult: false };
    const record = (key: string) => sqsRecord({ body: JSON.stringify({ orderNo: key }), clock });
    const done = await previous.decide(record('done'), owned(store, 'done'), use);
    expect(done?.kind).toBe('duplicate');
    expect((await store.get(store.recordId(CONSUMER, 'done')))?.status).toBe('COMPLETED');
    const held = await previous.decide(record('held'), owned(store, 'held'), use);
    expect(held?.kind === 'refused' && held.outcome.kind).toBe('in-progress');
    expect(await store.get(store.recordId(CONSUMER, 'held'))).toBeUndefined();
    expect(await previous.decide(record('fresh'), owned(store, 'fresh'), use)).toBeUndefined();
  });

  it('answers a key of ours already completed as our duplicate, and a mismatch with a PayloadMismatchError', async () => {
    const clock = new ManualClock();
    const store = new MemoryIdempotencyStore({ clock });
    const mine = await store.claim({ consumer: CONSUMER, key: 'done', leaseMs: 1_000, payloadHash: 'v2:one' });
    if (mine.kind !== 'claimed') throw new Error('seed');
    await store.complete({ id: mine.id, token: mine.token });
    const { previous } = previousLibrary(clock, { done: { kind: 'completed' }, other: { kind: 'mismatch', detail: 'x' } });
    const use = { store, consumer: CONSUMER, leaseMs: 30_000, storeResult: false };
    const record = (key: string) => sqsRecord({ body: JSON.stringify({ orderNo: key }), clock });
    const done = await previous.decide(record('done'), owned(store, 'done'), use);
    expect(done?.kind === 'duplicate' && done.outcome.existing.owner).toBe(mine.token);
    const other = await previous.decide(record('other'), owned(store, 'other'), use);
    expect(other?.kind === 'refused' && other.error).toBeInstanceOf(PayloadMismatchError);
    // Ours completed under another payload: our own record's mismatch, not a duplicate.
    const differs = await previous.decide(record('done'), { ...owned(store, 'done'), payloadHash: 'v2:other' }, use);
    expect(differs?.kind === 'refused' && differs.outcome.kind).toBe('invalid');
  });

  it('never rejects, even on a hold time no date can carry', async () => {
    const clock = new ManualClock();
    const store = new MemoryIdempotencyStore({ clock });
    const { previous } = previousLibrary(clock, { held: { kind: 'in-progress', untilMs: 1e20 } });
    const use = { store, consumer: CONSUMER, leaseMs: 30_000, storeResult: false };
    const held = await previous.decide(sqsRecord({ body: JSON.stringify({ orderNo: 'held' }), clock }), owned(store, 'held'), use);
    expect(held?.kind === 'refused' && String(held.error)).toContain('holds until 100000000000000000000 ms');
  });
});
