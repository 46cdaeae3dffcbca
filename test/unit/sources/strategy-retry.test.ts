/**
 * `runTransactional` retries a commit cancelled by contention within the
 * invocation (issue 10, item 10): the same `tx` items are committed again,
 * the handler is not run again, and the bound and the time left hold.
 * Sleep and random are injected: nothing sleeps here.
 */
import { describe, expect, it } from 'vitest';
import { TransactionRetryableError, type TransactionalIdempotencyStore } from '../../../src/index.js';
import type { CommitInput, CommitResult } from '../../../src/engine/store.js';
import { runTransactional } from '../../../src/strategies/transaction/commit-step.js';

/** A store whose first `conflicts` commits are cancelled by contention. */
function contendedStore(conflicts: number) {
  const commits: CommitInput[] = [];
  const store = {
    recordId: (consumer: string, key: string) => `${consumer}#${key}`,
    async commit(input: CommitInput): Promise<CommitResult> {
      commits.push(input);
      if (commits.length <= conflicts) throw new TransactionRetryableError('cancelled: TransactionConflict', { key: input.key });
      return {
        kind: 'committed',
        id: `c#${input.key}`,
        record: { id: `c#${input.key}`, status: 'COMPLETED', expiresAt: 4_000_000_000, attempts: 1 },
      };
    },
  } as unknown as TransactionalIdempotencyStore;
  return { store, commits };
}

const delivery = { messageId: 'm1', consumer: 'c', key: 'k' };

function run(store: TransactionalIdempotencyStore, timeLeftMs = () => Number.POSITIVE_INFINITY) {
  const pauses: number[] = [];
  let runs = 0;
  const outcome = runTransactional(
    store,
    delivery,
    { storeResult: false, onConflict: 'fail', retry: { timeLeftMs, random: () => 0.5, sleep: async (ms) => void pauses.push(ms) } },
    async (tx) => {
      runs += 1;
      tx.put({ TableName: 'points', Item: { pk: 'order-1' } });
      return 'done';
    },
  );
  return { outcome, pauses, runs: () => runs };
}

describe('runTransactional: commits cancelled by contention', () => {
  it('two conflicts, then the commit lands: completed, handler run once, the same items committed each time', async () => {
    const { store, commits } = contendedStore(2);
    const r = run(store);
    expect(await r.outcome).toMatchObject({ kind: 'completed', result: 'done' });
    expect(r.runs()).toBe(1);
    expect(commits).toHaveLength(3);
    expect(commits[1]?.actions).toEqual(commits[0]?.actions);
    expect(commits[2]?.actions).toEqual(commits[0]?.actions);
    expect(r.pauses).toHaveLength(2);
  });

  it('persistent conflicts: failed with the TransactionRetryableError after the bound (3 commits)', async () => {
    const { store, commits } = contendedStore(Number.POSITIVE_INFINITY);
    const r = run(store);
    expect(await r.outcome).toMatchObject({ kind: 'failed', error: expect.any(TransactionRetryableError) });
    expect(commits).toHaveLength(3);
    expect(r.runs()).toBe(1);
  });

  it('no time left before the safety margin: no retry at all', async () => {
    const { store, commits } = contendedStore(1);
    const r = run(store, () => 0);
    expect(await r.outcome).toMatchObject({ kind: 'failed', error: expect.any(TransactionRetryableError) });
    expect(commits).toHaveLength(1);
    expect(r.pauses).toEqual([]);
  });
});
