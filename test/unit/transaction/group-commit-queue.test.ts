/**
 * Group commit's queue (transaction/group-commit/queue.ts) against
 * MemoryIdempotencyStore, given the group-commit methods a test store
 * needs: which record ids the duplicate probe reads when the store's warm
 * cache knows some of them, when it reads none, and what the queue tells
 * the container's duplicate rate.
 */
import { describe, expect, it } from 'vitest';
import { DuplicateRate } from '../../../src/strategies/transaction/group-commit/duplicate-probe.js';
import { GroupCommitter } from '../../../src/strategies/transaction/group-commit/queue.js';
import { knownCompleted, knowsCompleted } from '../../../src/engine/warm-cache.js';
import type { IdempotencyRecord } from '../../../src/engine/record.js';
import type { CommitInput, CommitResult, GroupCommitAnswer, TransactItem } from '../../../src/engine/store.js';
import { MemoryIdempotencyStore } from '../../../src/testing/index.js';

const completed = (id: string): IdempotencyRecord => ({ id, status: 'COMPLETED', expiresAt: 4_000_000_000, attempts: 1 });

/** A memory store with commit, commitGroup, getMany and a warm cache of COMPLETED ids (answered first, as the DynamoDB store does). */
class CachingStore extends MemoryIdempotencyStore {
  readonly cached = new Set<string>();
  readonly reads: string[][] = [];

  async commit(input: CommitInput): Promise<CommitResult> {
    const id = this.recordId(input.consumer, input.key);
    if (this.cached.has(id)) return { kind: 'duplicate', id, existing: completed(id), fromCache: true };
    return { kind: 'committed', id, record: completed(id) };
  }

  async commitGroup(inputs: readonly CommitInput[]): Promise<GroupCommitAnswer[]> {
    return Promise.all(inputs.map(async (input) => ({ kind: 'result' as const, result: await this.commit(input) })));
  }

  async getMany(ids: readonly string[]): Promise<ReadonlyMap<string, IdempotencyRecord>> {
    this.reads.push([...ids]);
    return new Map();
  }

  [knownCompleted](id: string): boolean {
    return this.cached.has(id);
  }
}

const write = (key: string): TransactItem => ({ Put: { TableName: 'biz', Item: { pk: key } } });
const input = (key: string, actions = 1): CommitInput => ({
  consumer: 'c',
  key,
  actions: Array.from({ length: actions }, () => write(key)),
});
/** The probe is sent from a microtask: let it go out. */
const sent = () => new Promise<void>((resolve) => setImmediate(resolve));
const ids = (keys: readonly string[]) => keys.map((k) => `c#${k}`);

function committer(store: CachingStore, rate: DuplicateRate): GroupCommitter {
  const c = GroupCommitter.for(store, 'group', rate);
  if (c === undefined) throw new Error('the store can commit groups');
  return c;
}

/** A rate whose recent duplicates are 10 % of the records: a batch of 10 pays for the read, one of 2 does not. */
function tenPercent(): DuplicateRate {
  const rate = new DuplicateRate('auto');
  for (let i = 0; i < 1000; i += 1) rate.observe(1, 10, 18);
  expect(rate.wantsProbe(10)).toBe(true);
  expect(rate.wantsProbe(2)).toBe(false);
  return rate;
}

describe('GroupCommitter: the warm cache before the duplicate probe', () => {
  it('the probe reads only the ids the cache does not know as COMPLETED', async () => {
    const store = new CachingStore();
    store.cached.add('c#b');
    store.cached.add('c#d');
    committer(store, new DuplicateRate('always')).probe(ids(['a', 'b', 'c', 'd']));
    await sent();
    expect(store.reads).toEqual([['c#a', 'c#c']]);
  });

  it('a batch the cache knows entirely sends no read, even with probeDuplicates "always"', async () => {
    const store = new CachingStore();
    for (const id of ids(['a', 'b'])) store.cached.add(id);
    committer(store, new DuplicateRate('always')).probe(ids(['a', 'b']));
    await sent();
    expect(store.reads).toEqual([]);
  });

  it('"auto" weighs the read against the records the cache does not know: 2 of 10 unknown at a 10 % rate are not worth it', async () => {
    const store = new CachingStore();
    const keys = 'abcdefghij'.split('');
    for (const id of ids(keys.slice(2))) store.cached.add(id);
    committer(store, tenPercent()).probe(ids(keys));
    await sent();
    expect(store.reads).toEqual([]);
    // Control: the same batch with a cold cache is read whole.
    const cold = new CachingStore();
    committer(cold, tenPercent()).probe(ids(keys));
    await sent();
    expect(cold.reads).toEqual([ids(keys)]);
  });

  it('a store that cannot say what its cache knows is probed for every id', async () => {
    const store = new CachingStore();
    store.cached.add('c#a');
    const plain = Object.assign(new MemoryIdempotencyStore(), {
      commit: (i: CommitInput) => store.commit(i),
      commitGroup: (i: readonly CommitInput[]) => store.commitGroup(i),
      getMany: (i: readonly string[]) => store.getMany(i),
    });
    expect(knowsCompleted(plain)).toBe(false);
    expect(knowsCompleted(store)).toBe(true);
    const c = GroupCommitter.for(plain, 'group', new DuplicateRate('always'));
    c?.probe(ids(['a', 'b']));
    await sent();
    expect(store.reads).toEqual([['c#a', 'c#b']]);
  });
});

describe('GroupCommitter: what the duplicate rate learns from a group commit', () => {
  it('counts the committed records and their items; the duplicates the cache answered count for nothing', async () => {
    const store = new CachingStore();
    store.cached.add('c#x');
    const rate = new DuplicateRate('auto');
    const c = committer(store, rate);
    const answers = await Promise.all([c.commit(input('a', 4)), c.commit(input('b', 4)), c.commit(input('x', 4))]);
    expect(answers.map((a) => a.kind)).toEqual(['committed', 'committed', 'duplicate']);
    expect(rate.rate).toBe(0);
    // Two records of 5 items each (idempotency record included) move the running mean up from 2.
    expect(rate.itemsPerRecord).toBeGreaterThan(2);
    const before = rate.itemsPerRecord;
    await c.commit(input('x', 9));
    expect(rate.itemsPerRecord).toBe(before);
    expect(rate.rate).toBe(0);
  });
});
