/**
 * The DynamoDB store's batched calls on DynamoDB Local: `claimMany` (PartiQL
 * INSERTs in `BatchExecuteStatement`s) answers every key exactly as `claim`
 * does, whatever state its item is in; `completeMany` (fenced PartiQL
 * UPDATEs) keeps every rule of `complete`.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ItemTooLargeError } from '../../src/engine/errors.js';
import { DynamoDBIdempotencyStore } from '../../src/stores/dynamodb/store.js';
import type { DynamoDBIdempotencyStoreOptions } from '../../src/stores/dynamodb/options.js';
import type { ClaimResult, StoreAnswer } from '../../src/engine/store.js';
import { ManualClock } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';
import { countRequests, rawItem } from '../support/store.js';

const LEASE = 30_000;
const RETENTION = 60 * 60 * 1000;
const CONSUMER = 'payments';

let table: string;

beforeAll(async () => {
  table = await freshTable(testDynamo().client);
});

function setup(options: Partial<Omit<DynamoDBIdempotencyStoreOptions, 'client' | 'tableName'>> = {}, clock = new ManualClock(Date.now())) {
  const { doc } = testDynamo();
  const requests = countRequests(doc);
  const store = new DynamoDBIdempotencyStore({
    client: doc,
    tableName: table,
    retentionMs: RETENTION,
    clock,
    release: 'mark-failed',
    ...options,
  });
  return { doc, clock, requests, store };
}

const claimOf = (key: string) => ({ consumer: CONSUMER, key, leaseMs: LEASE, messageId: `m-${key}` });

function results(answers: readonly StoreAnswer<ClaimResult>[]): ClaimResult[] {
  return answers.map((a) => {
    if (a.kind === 'error') throw a.error;
    return a.result;
  });
}

function mustClaim(result: ClaimResult | undefined): Extract<ClaimResult, { kind: 'claimed' }> {
  if (result?.kind !== 'claimed') throw new Error(`expected a claim, got ${result?.kind}`);
  return result;
}

/**
 * Keys in every state a claim can meet, written with `store`: fresh, COMPLETED,
 * IN_PROGRESS with a live lease, IN_PROGRESS with its lease passed, FAILED, and
 * COMPLETED past its retention but not deleted by TTL (the manual clock is
 * past it, the wall clock is not).
 */
async function keysInEveryState(store: DynamoDBIdempotencyStore, clock: ManualClock, copies: number) {
  const k = (state: string) => Array.from({ length: copies }, () => `${state}-${randomUUID()}`);
  const keys = {
    fresh: k('fresh'),
    completed: k('completed'),
    live: k('live'),
    leasePassed: k('lease'),
    failed: k('failed'),
    retained: k('retained'),
  };
  for (const key of keys.retained) {
    const retained = mustClaim(await store.claim(claimOf(key)));
    await store.complete({ id: retained.id, token: retained.token });
  }
  clock.advance(RETENTION + 1);
  for (const key of keys.leasePassed) mustClaim(await store.claim(claimOf(key)));
  clock.advance(LEASE + 1);
  for (const key of keys.live) mustClaim(await store.claim(claimOf(key)));
  for (const key of keys.completed) {
    const completed = mustClaim(await store.claim(claimOf(key)));
    await store.complete({ id: completed.id, token: completed.token, result: { receipt: 'r-1' }, storeResult: true });
  }
  for (const key of keys.failed) {
    const failed = mustClaim(await store.claim(claimOf(key)));
    await store.release({ id: failed.id, token: failed.token, error: new Error('boom') });
  }
  return keys;
}

/** What a claim answered, without what differs between two runs (ids, tokens, times). */
function shape(result: ClaimResult) {
  if (result.kind === 'claimed') return { kind: result.kind, attempts: result.record.attempts, status: result.record.status };
  return { kind: result.kind, status: result.existing.status, attempts: result.existing.attempts };
}

describe('DynamoDBIdempotencyStore.claimMany', () => {
  it('answers each key exactly as claim() does: fresh, completed, live, lease passed, failed, past retention', async () => {
    const { store, clock, requests } = setup();
    const keys = await keysInEveryState(store, clock, 2);
    const order = ['fresh', 'completed', 'live', 'leasePassed', 'failed', 'retained'] as const;
    const one = await Promise.all(order.map((s) => store.claim(claimOf(keys[s][0] as string))));
    requests.reset();
    const many = results(await store.claimMany(order.map((s) => claimOf(keys[s][1] as string))));
    expect(many.map(shape)).toEqual(one.map(shape));
    expect(many.map(shape)).toEqual([
      { kind: 'claimed', attempts: 1, status: 'IN_PROGRESS' },
      { kind: 'completed', attempts: 1, status: 'COMPLETED' },
      { kind: 'in-progress', attempts: 1, status: 'IN_PROGRESS' },
      { kind: 'claimed', attempts: 2, status: 'IN_PROGRESS' },
      { kind: 'claimed', attempts: 2, status: 'IN_PROGRESS' },
      { kind: 'claimed', attempts: 2, status: 'IN_PROGRESS' },
    ]);
    const done = many[1];
    expect(done?.kind === 'completed' ? done.existing.result : undefined).toEqual({ receipt: 'r-1' });
    // One batch of six INSERTs; the five keys with an item are read in one request, and the three free ones taken over alone.
    expect(requests.commands.filter((c) => c === 'BatchExecuteStatementCommand')).toHaveLength(1);
    expect(requests.commands.filter((c) => c === 'BatchGetItemCommand')).toHaveLength(1);
    expect(requests.commands.filter((c) => c === 'UpdateItemCommand')).toHaveLength(3);
    expect(requests.commands).toHaveLength(5);
    // Every claim won is stored as its answer says, under its own token.
    for (const result of many.filter((r) => r.kind === 'claimed')) {
      const item = await store.get(result.id);
      expect(item?.owner).toBe(result.token);
      expect(item?.messageId).toBe(result.record.messageId);
    }
  });

  it('chunks more than 25 claims into requests of 25, and a key named twice is claimed once', async () => {
    const { store, requests } = setup();
    const keys = Array.from({ length: 30 }, () => `many-${randomUUID()}`);
    const many = results(await store.claimMany([...keys, keys[0] as string].map(claimOf)));
    expect(many.slice(0, 30).every((r) => r.kind === 'claimed')).toBe(true);
    expect(many[30]?.kind).toBe('in-progress');
    expect(requests.commands.filter((c) => c === 'BatchExecuteStatementCommand')).toHaveLength(2);
    for (const [i, k] of keys.entries()) expect((await store.get(store.recordId(CONSUMER, k)))?.owner).toBe(mustClaim(many[i]).token);
  });

  it('answers a COMPLETED key from the warm-container cache without a request', async () => {
    const { store, requests } = setup({ cache: { maxEntries: 10 } });
    const k = `cached-${randomUUID()}`;
    const [won] = results(await store.claimMany([claimOf(k), claimOf(`other-${randomUUID()}`)]));
    const claimed = mustClaim(won);
    await store.completeMany([{ id: claimed.id, token: claimed.token }]);
    requests.reset();
    const [again] = results(await store.claimMany([claimOf(k)]));
    expect(again).toMatchObject({ kind: 'completed', fromCache: true });
    expect(requests.commands).toEqual([]);
  });

  it('of two invocations racing on the same keys, exactly one owns each key', async () => {
    const clock = new ManualClock(Date.now());
    const a = setup({}, clock);
    const b = setup({}, clock);
    const keys = Array.from({ length: 40 }, () => `race-${randomUUID()}`);
    const [ra, rb] = await Promise.all([a.store.claimMany(keys.map(claimOf)), b.store.claimMany([...keys].reverse().map(claimOf))]);
    const fromA = results(ra);
    const fromB = results(rb).reverse();
    for (const [i, k] of keys.entries()) {
      const winners = [fromA[i], fromB[i]].filter((r) => r?.kind === 'claimed');
      expect(winners, k).toHaveLength(1);
      expect([fromA[i], fromB[i]].filter((r) => r?.kind === 'in-progress')).toHaveLength(1);
      expect((await a.store.get(a.store.recordId(CONSUMER, k)))?.owner).toBe(mustClaim(winners[0]).token);
    }
  });
});

describe('DynamoDBIdempotencyStore.completeMany', () => {
  it('completes each claim with its result in one request, and refuses a token taken over without touching the new owner', async () => {
    const { store, clock, requests, doc } = setup({ cache: { maxEntries: 10 } });
    const keys = Array.from({ length: 4 }, () => `done-${randomUUID()}`);
    const claims = results(await store.claimMany(keys.map(claimOf))).map(mustClaim);
    // The last claim's lease passes and another invocation takes the key over.
    clock.advance(LEASE + 1);
    const other = setup({}, clock);
    const lost = claims[3] as (typeof claims)[number];
    const taker = mustClaim(await other.store.claim(claimOf(keys[3] as string)));
    requests.reset();
    const answers = await store.completeMany(claims.map((c, i) => ({ id: c.id, token: c.token, result: { n: i }, storeResult: true })));
    expect(answers.slice(0, 3).map((a) => (a.kind === 'result' ? a.result.kind : 'error'))).toEqual(['ok', 'ok', 'ok']);
    expect(answers[3]).toMatchObject({
      kind: 'result',
      result: { kind: 'lease-lost', current: { owner: taker.token, status: 'IN_PROGRESS' } },
    });
    // One batch of four fenced UPDATEs; the refused one is completed alone, which reports the lease lost.
    expect(requests.commands).toEqual(['BatchExecuteStatementCommand', 'UpdateItemCommand']);
    for (const [i, c] of claims.slice(0, 3).entries()) {
      const item = await rawItem(doc, table, { id: c.id });
      expect(item).toMatchObject({ status: 'COMPLETED', owner: c.token, result: { j: JSON.stringify({ n: i }) } });
      expect(item?.['leaseUntil']).toBeUndefined();
      const answer = answers[i];
      expect(answer?.kind === 'result' && answer.result.kind === 'ok' ? answer.result.record?.status : undefined).toBe('COMPLETED');
    }
    const taken = await rawItem(doc, table, { id: lost.id });
    expect(taken).toMatchObject({ status: 'IN_PROGRESS', owner: taker.token, leaseUntil: taker.record.leaseUntil });
    expect(taken?.['result']).toBeUndefined();
    // The completed records are cached: a duplicate costs no request.
    requests.reset();
    expect(await store.claim(claimOf(keys[0] as string))).toMatchObject({
      kind: 'completed',
      fromCache: true,
      existing: { result: { n: 0 } },
    });
    expect(requests.commands).toEqual([]);
  });

  it('a result too large is refused as by complete(), and the others of the batch still complete', async () => {
    const { store, doc } = setup();
    const claims = results(await store.claimMany([claimOf(`big-${randomUUID()}`), claimOf(`small-${randomUUID()}`)])).map(mustClaim);
    const [big, small] = claims as [(typeof claims)[number], (typeof claims)[number]];
    const answers = await store.completeMany([
      { id: big.id, token: big.token, result: 'x'.repeat(500 * 1024), storeResult: true },
      { id: small.id, token: small.token, result: 'ok', storeResult: true },
    ]);
    expect(answers[0]?.kind === 'error' ? answers[0].error : undefined).toBeInstanceOf(ItemTooLargeError);
    expect(answers[1]).toMatchObject({ kind: 'result', result: { kind: 'ok' } });
    expect(await rawItem(doc, table, { id: big.id })).toMatchObject({ status: 'IN_PROGRESS', owner: big.token });
    expect(await rawItem(doc, table, { id: small.id })).toMatchObject({ status: 'COMPLETED' });
  });

  it('a result DynamoDB refuses as too large (past the estimate) still takes the single path, whose error says so', async () => {
    const { store, doc } = setup();
    const [claimed, other] = results(await store.claimMany([claimOf(`edge-${randomUUID()}`), claimOf(`edge2-${randomUUID()}`)])).map(
      mustClaim,
    );
    if (claimed === undefined || other === undefined) throw new Error('two claims');
    // A record grown by attributes the estimate does not see, so the completed item passes 400 KB only on the server.
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { id: claimed.id },
        UpdateExpression: 'SET #pad = :p',
        ExpressionAttributeNames: { '#pad': 'pad' },
        ExpressionAttributeValues: { ':p': 'p'.repeat(300 * 1024) },
      }),
    );
    const answers = await store.completeMany([
      { id: claimed.id, token: claimed.token, result: 'r'.repeat(150 * 1024), storeResult: true },
      { id: other.id, token: other.token },
    ]);
    expect(answers[0]?.kind === 'error' ? answers[0].error : undefined).toBeInstanceOf(ItemTooLargeError);
    expect(answers[1]).toMatchObject({ kind: 'result', result: { kind: 'ok' } });
    expect(await rawItem(doc, table, { id: claimed.id })).toMatchObject({ status: 'IN_PROGRESS', owner: claimed.token });
  });
});
