/**
 * Group commit's duplicate probe against DynamoDB Local: one strongly
 * consistent `BatchGetItem` of the batch's idempotency records, sent while
 * the handlers run. A record found COMPLETED (same payload, within its
 * retention) is answered as the duplicate its refused commit would be and
 * joins no group; one found held or under another payload commits alone;
 * everything else commits as without the probe, the conditional Put staying
 * the only authority.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { DynamoDBIdempotencyStore, sqsIdempotency, transaction, type DynamoDBIdempotencyStoreOptions } from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { injectDynamoDBFaults, sqsEvent } from '../../../src/testing/index.js';
import { PROBE_WAIT_MS } from '../../../src/strategies/transaction/group-commit/queue.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { countRequests } from '../../support/store.js';
import { failedIds, harness, order } from './harness.js';

async function setup(storeOptions: Partial<DynamoDBIdempotencyStoreOptions> = {}) {
  const h = await harness(storeOptions);
  const { client, doc } = testDynamo();
  const business = await freshTable(client, businessTable, 'biz');
  const runs = new Map<string, number>();
  /** Each record: one point on `counter#<key>`. */
  const award: TransactionRecordHandler = (_record, { key, tx }) => {
    runs.set(key, (runs.get(key) ?? 0) + 1);
    tx.update({
      TableName: business,
      Key: { pk: `counter#${key}` },
      UpdateExpression: 'ADD points :p',
      ExpressionAttributeValues: { ':p': 1 },
    });
    return { awarded: key };
  };
  const points = async (key: string) => {
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const out = await doc.send(new GetCommand({ TableName: business, Key: { pk: `counter#${key}` }, ConsistentRead: true }));
    return out.Item?.['points'];
  };
  return { h, award, runs, points };
}

const keys = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const entryOf = (line: BatchLogLine | undefined, r: SQSRecord) => line?.records.find((x) => x.messageId === r.messageId);
const TX = 'TransactWriteItemsCommand';
const GET = 'BatchGetItemCommand';

/** The ids each BatchGetItem (the probe) asked for, in order. */
function probedIds(doc: DynamoDBDocumentClient): string[][] {
  const asked: string[][] = [];
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (context['commandName'] === GET) {
        const tables = (args.input as { RequestItems?: Record<string, { Keys?: Array<{ id?: string }> }> }).RequestItems ?? {};
        asked.push(Object.values(tables).flatMap((t) => (t.Keys ?? []).map((k) => String(k.id))));
      }
      return next(args);
    },
    { step: 'initialize', name: 'probedIds' },
  );
  return asked;
}

/** Runs `after` once, right after the first BatchGetItem's answer (another invocation acting between probe and commit). */
function afterFirstProbe(doc: DynamoDBDocumentClient, after: () => Promise<void>): void {
  let done = false;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (!done && context['commandName'] === GET) {
        done = true;
        await after();
      }
      return out;
    },
    { step: 'initialize', name: 'afterFirstProbe' },
  );
}

/**
 * Takes the probe's bound (PROBE_WAIT_MS) out of the test: on a loaded
 * machine DynamoDB Local may answer a probe after it, and the batch then
 * commits without the answer, as it should. These tests are about what the
 * answer does, so the bound's timer is pushed out of reach; the tests of the
 * bound itself (a throttled or slow probe) keep it.
 */
let boundOff: MockInstance<typeof setTimeout> | undefined;
function probeAlwaysInTime(): void {
  const real = globalThis.setTimeout;
  const never = 2 ** 31 - 1;
  boundOff = vi
    .spyOn(globalThis, 'setTimeout')
    .mockImplementation(((fn: () => void, ms?: number) => real(fn, ms === PROBE_WAIT_MS ? never : ms)) as typeof setTimeout);
}
afterEach(() => {
  boundOff?.mockRestore();
  boundOff = undefined;
});

describe('sqsIdempotency, transaction strategy: group commit with the duplicate probe', () => {
  it('a duplicate inside a batch is answered from the probe; the others commit in one TransactWriteItems', async () => {
    probeAlwaysInTime();
    const { h, award, runs, points } = await setup();
    const handler = h.txHandler(award, { strategy: transaction({ probeDuplicates: 'always' }) });
    await handler(sqsEvent([order('d4')]), h.context());
    const requests = countRequests(h.doc);
    const records = keys(8, 'd').map((k) => order(k));
    expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual([]);
    // Without the probe: a cancelled group, then the 7 others again.
    expect(requests.commands).toEqual([GET, TX]);
    expect(entryOf(h.lines.at(-1), records[4] as SQSRecord)?.outcome).toBe('duplicate');
    expect(h.lines.at(-1)?.counts.completed).toBe(7);
    expect(h.lines.at(-1)?.counts.duplicate).toBe(1);
    expect(await points('d4')).toBe(1);
    expect(await points('d7')).toBe(1);
    // The probe runs beside the handlers: the duplicate's handler ran, its writes were dropped.
    expect(runs.get('d4')).toBe(2);
  });

  it('the probe answers a duplicate exactly as a cancelled commit does (stored result on): same response and log entry', async () => {
    probeAlwaysInTime();
    const { h, award } = await setup();
    const options = { strategy: transaction(), storeResult: true };
    const first = h.txHandler(award, options);
    await first(sqsEvent([order('r1'), order('r2')]), h.context());
    const answers = [];
    for (const probeDuplicates of ['never', 'always'] as const) {
      const handler = h.txHandler(award, { ...options, strategy: transaction({ probeDuplicates }) });
      const records = [order('r1'), order(`fresh-${probeDuplicates}`)];
      const response = await handler(sqsEvent(records), h.context());
      const { messageId: _m, ...entry } = entryOf(h.lines.at(-1), records[0] as SQSRecord) ?? {};
      answers.push({ failed: failedIds(response), entry, counts: h.lines.at(-1)?.counts });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[1]?.entry).toMatchObject({ outcome: 'duplicate' });
    expect(answers[1]?.entry).not.toHaveProperty('replay');
  });

  it('a key completed by another invocation between the probe and the commit: the commit’s refusal answers it', async () => {
    probeAlwaysInTime();
    const { h, award, points } = await setup();
    const handler = h.txHandler(award, { strategy: transaction({ probeDuplicates: 'always' }) });
    afterFirstProbe(h.doc, async () => {
      await h.store.commit({ consumer: 'test', key: 'race2', actions: [] });
    });
    const requests = countRequests(h.doc);
    const records = keys(4, 'race').map((k) => order(k));
    expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual([]);
    // The other invocation's commit, then ours: the probe found nothing, the group was cancelled by race2's Put, the others went again.
    expect(requests.commands).toEqual([GET, TX, TX, TX]);
    expect(entryOf(h.lines.at(-1), records[2] as SQSRecord)?.outcome).toBe('duplicate');
    expect(await points('race2')).toBeUndefined();
    for (const k of ['race0', 'race1', 'race3']) expect(await points(k)).toBe(1);
  });

  it('a live IN_PROGRESS claim found by the probe commits alone and comes back; the others commit together', async () => {
    probeAlwaysInTime();
    const { h, award, points } = await setup();
    const claim = await h.store.claim({ consumer: 'test', key: 'held1', leaseMs: 600_000 });
    expect(claim.kind).toBe('claimed');
    const handler = h.txHandler(award, { strategy: transaction({ probeDuplicates: 'always' }) });
    const requests = countRequests(h.doc);
    const records = keys(4, 'held').map((k) => order(k));
    const response = await handler(sqsEvent(records), h.context());
    expect(failedIds(response)).toEqual([records[1]?.messageId]);
    // One group of three and the held record alone, side by side: no cancelled group sent again.
    expect(requests.commands).toEqual([GET, TX, TX]);
    expect(entryOf(h.lines.at(-1), records[1] as SQSRecord)).toMatchObject({
      outcome: 'failed',
      error: { name: 'IdempotencyInProgressError' },
    });
    expect(await points('held1')).toBeUndefined();
    for (const k of ['held0', 'held2', 'held3']) expect(await points(k)).toBe(1);
  });

  it('a payload mismatch found by the probe is decided by the commit, as without the probe (invalid, not acknowledged)', async () => {
    probeAlwaysInTime();
    const { h, award, points } = await setup();
    const handler = h.txHandler(award, { strategy: transaction({ probeDuplicates: 'always' }) });
    await handler(sqsEvent([order('p1', { amount: 1 })]), h.context());
    const requests = countRequests(h.doc);
    const records = [order('p0'), order('p1', { amount: 2 }), order('p2')];
    const response = await handler(sqsEvent(records), h.context());
    expect(failedIds(response)).toEqual([records[1]?.messageId]);
    expect(entryOf(h.lines.at(-1), records[1] as SQSRecord)).toMatchObject({ outcome: 'invalid', error: { name: 'PayloadMismatchError' } });
    expect(requests.commands).toEqual([GET, TX, TX]);
    expect(await points('p1')).toBe(1);
    expect(await points('p0')).toBe(1);
    expect(await points('p2')).toBe(1);
  });

  it('FIFO: a duplicate answered by the probe lets its group go on; every group commits in order', async () => {
    probeAlwaysInTime();
    const { h, award, points, runs } = await setup();
    const handler = h.txHandler(award, { strategy: transaction({ probeDuplicates: 'always' }) });
    await handler(sqsEvent([order('fa1', {}, { groupId: 'A' })]), h.context());
    const requests = countRequests(h.doc);
    const records = [
      order('fa1', {}, { groupId: 'A' }),
      order('fb1', {}, { groupId: 'B' }),
      order('fa2', {}, { groupId: 'A' }),
      order('fb2', {}, { groupId: 'B' }),
    ];
    expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual([]);
    expect(entryOf(h.lines.at(-1), records[0] as SQSRecord)?.outcome).toBe('duplicate');
    expect(h.lines.at(-1)?.counts.completed).toBe(3);
    // One probe for the whole batch; no commit was cancelled by the duplicate.
    expect(requests.commands.filter((c) => c === GET)).toHaveLength(1);
    expect(requests.commands.filter((c) => c === TX)).toHaveLength(2);
    expect(await points('fa1')).toBe(1);
    expect(await points('fa2')).toBe(1);
    expect(await points('fb2')).toBe(1);
    expect(runs.get('fa2')).toBe(1);
  });

  it('a probe that is throttled throughout, or fails, leaves the batch to commit as without it', async () => {
    const { h, award, points } = await setup();
    const handler = h.txHandler(award, { strategy: transaction({ probeDuplicates: 'always' }) });
    await handler(sqsEvent([order('t1'), order('e1')]), h.context());
    const faults = injectDynamoDBFaults(h.doc, { rules: [{ fault: 'throttle', commands: ['BatchGetItem'], probability: 1 }] });
    const throttled = keys(3, 't').map((k) => order(k));
    expect(failedIds(await handler(sqsEvent(throttled), h.context()))).toEqual([]);
    // The batch no longer waits for the throttled read (PROBE_WAIT_MS): the SDK's retries end after the answer.
    expect(faults.injected().throttle).toBeGreaterThanOrEqual(1);
    await vi.waitFor(() => expect(faults.surfaced().throttle).toBe(1), { timeout: 15_000 });
    expect(entryOf(h.lines.at(-1), throttled[1] as SQSRecord)?.outcome).toBe('duplicate');
    faults.remove();
    const requests = countRequests(h.doc);
    h.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context['commandName'] === GET) throw new Error('the probe broke');
        return next(args);
      },
      { step: 'initialize', name: 'brokenProbe' },
    );
    const broken = keys(3, 'e').map((k) => order(k));
    expect(failedIds(await handler(sqsEvent(broken), h.context()))).toEqual([]);
    expect(requests.commands).toEqual([GET, TX, TX]);
    expect(entryOf(h.lines.at(-1), broken[1] as SQSRecord)?.outcome).toBe('duplicate');
    for (const k of ['t0', 't1', 't2', 'e0', 'e1', 'e2']) expect(await points(k)).toBe(1);
  });

  it('a slow probe holds the commits back for at most a short bound, never until the invocation runs out', async () => {
    const { h, award, points } = await setup();
    const handler = h.txHandler(award, { strategy: transaction({ probeDuplicates: 'always' }) });
    const faults = injectDynamoDBFaults(h.doc, {
      rules: [{ fault: 'latency', latencyMs: 5_000, commands: ['BatchGetItem'], probability: 1 }],
    });
    const slow = keys(3, 's').map((k) => order(k));
    // 3 s left: the batch's safety margin ends well before the slow read would answer.
    const answer = await handler(sqsEvent(slow), h.context(3_000));
    faults.remove();
    expect(faults.injected().latency).toBe(1);
    expect(failedIds(answer)).toEqual([]);
    for (const record of slow) expect(entryOf(h.lines.at(-1), record)?.outcome).toBe('completed');
    for (const k of ['s0', 's1', 's2']) expect(await points(k)).toBe(1);
  });

  it('a slow probe is waited for once per batch, not once per commit round (FIFO: one round per record of a group)', async () => {
    const { h, award, points } = await setup();
    const handler = h.txHandler(award, { strategy: transaction({ probeDuplicates: 'always' }) });
    const faults = injectDynamoDBFaults(h.doc, {
      rules: [{ fault: 'latency', latencyMs: 5_000, commands: ['BatchGetItem'], probability: 1 }],
    });
    const group = keys(10, 'q').map((k) => order(k, {}, { groupId: 'Q' }));
    // 2.5 s left, of which the safety margin keeps 0.5 s: ten rounds each waiting the bound anew would not fit.
    const answer = await handler(sqsEvent(group), h.context(2_500));
    faults.remove();
    expect(faults.injected().latency).toBe(1);
    expect(failedIds(answer)).toEqual([]);
    for (const record of group) expect(entryOf(h.lines.at(-1), record)?.outcome).toBe('completed');
    for (const k of keys(10, 'q')) expect(await points(k)).toBe(1);
  });

  it('"auto": no probe in a fresh container, a probe once duplicates were frequent; "never" and commit "record": none', async () => {
    probeAlwaysInTime();
    const { h, award } = await setup();
    const auto = h.txHandler(award, { strategy: transaction() });
    const requests = countRequests(h.doc);
    await auto(sqsEvent(keys(10, 'a').map((k) => order(k))), h.context());
    expect(requests.commands).not.toContain(GET);
    // Batches that are all duplicates: the container learns the rate.
    for (let i = 0; i < 3; i += 1) await auto(sqsEvent(keys(10, 'a').map((k) => order(k))), h.context());
    requests.reset();
    await auto(sqsEvent([...keys(5, 'a'), ...keys(5, 'b')].map((k) => order(k))), h.context());
    expect(requests.commands).toEqual([GET, TX]);
    expect(h.lines.at(-1)?.counts).toMatchObject({ duplicate: 5, completed: 5 });
    for (const options of [{ probeDuplicates: 'never' as const }, { commit: 'record' as const, probeDuplicates: 'always' as const }]) {
      const handler = h.txHandler(award, { strategy: transaction(options) });
      requests.reset();
      await handler(sqsEvent(keys(3, 'a').map((k) => order(k))), h.context());
      expect(requests.commands).not.toContain(GET);
    }
  });

  it('with the warm cache: keys it knows as COMPLETED are neither read by the probe nor committed; the rest is read and commits', async () => {
    probeAlwaysInTime();
    const { h, award, runs, points } = await setup({ cache: { maxEntries: 100 } });
    const handler = h.txHandler(award, { strategy: transaction({ probeDuplicates: 'always' }) });
    await handler(sqsEvent(keys(3, 'w').map((k) => order(k))), h.context());
    // Completed by another container: in the table, not in this store's cache.
    const elsewhere = new DynamoDBIdempotencyStore({ client: h.doc, tableName: h.table, clock: h.clock });
    await elsewhere.commit({ consumer: 'test', key: 'x1', actions: [] });
    const requests = countRequests(h.doc);
    const asked = probedIds(h.doc);
    const records = ['w0', 'w1', 'x1', 'n0', 'n1'].map((k) => order(k));
    expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual([]);
    expect(asked).toEqual([['x1', 'n0', 'n1'].map((k) => h.store.recordId('test', k))]);
    expect(requests.commands).toEqual([GET, TX]);
    expect(h.lines.at(-1)?.counts).toMatchObject({ duplicate: 3, completed: 2 });
    for (const k of ['w0', 'w1', 'n0', 'n1']) expect(await points(k)).toBe(1);
    expect(await points('x1')).toBeUndefined();
    expect(runs.get('w0')).toBe(2);
    // A batch the cache knows entirely (x1 now too, from the probe): no read, no transaction.
    requests.reset();
    await handler(sqsEvent(['w2', 'x1', 'n0'].map((k) => order(k))), h.context());
    expect(requests.commands).toEqual([]);
    expect(h.lines.at(-1)?.counts).toMatchObject({ duplicate: 3 });
    expect(await points('w2')).toBe(1);
  });

  it('the probeDuplicates option is checked when transaction() or the middleware is built', async () => {
    const { h } = await setup();
    expect(() => transaction({ probeDuplicates: 'sometimes' as never })).toThrow(TypeError);
    expect(() => transaction({ probeDuplicates: 'sometimes' as never })).toThrow(/transaction\(\): option "probeDuplicates"/);
    const handMade = { kind: 'transaction', onConflict: 'fail', commit: 'group', probeDuplicates: 'sometimes' } as never;
    expect(() => sqsIdempotency({ store: h.store, key: () => 'k', strategy: handMade })).toThrow(/option "strategy"/);
    expect(() => sqsIdempotency({ store: h.store, key: () => 'k', probeDuplicates: 'always' } as never)).toThrow(
      'sqsIdempotency: unknown option "probeDuplicates"',
    );
  });
});
