/**
 * When the claim strategy's completions leave (strategies/claim/coalesce.ts), on fake time so that the rule, not a
 * duration, is what each test checks. A finished record's completion waits for others to share its request, but only
 * while a handler of the batch still runs: once none runs nothing more can join, so what waits goes at once. Before,
 * the batch's last completion (the one its duration waits on) sat out the whole `per-record` window alone.
 */
import { setImmediate as nextTurn } from 'node:timers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CompleteInput } from '../../../src/engine/store.js';
import { CoalescedStore, COMPLETION_WINDOW_MS, MAX_COMPLETION_WAIT_MS } from '../../../src/strategies/claim/coalesce.js';
import type { ClaimRequests } from '../../../src/strategies/claim/requests.js';
import { ManualClock, MemoryIdempotencyStore } from '../../../src/testing/index.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

/** A memory store whose completions are logged as the requests they are sent in (ids per request). */
class LoggedStore extends MemoryIdempotencyStore {
  readonly requests: string[][] = [];

  override complete(input: CompleteInput) {
    this.requests.push([input.id]);
    return super.complete(input);
  }

  override completeMany(inputs: readonly CompleteInput[]) {
    this.requests.push(inputs.map((i) => i.id));
    return Promise.all(inputs.map((i) => super.complete(i).then((result) => ({ kind: 'result' as const, result }))));
  }
}

/** A batch of `keys` claimed through a coalescing view in the `requests` pattern; each handler ends when released. */
async function batch(requests: ClaimRequests, keys: readonly string[]) {
  const store = new LoggedStore({ clock: new ManualClock() });
  const view = CoalescedStore.over(store, requests);
  if (view === undefined) throw new Error('the memory store has batched calls');
  const claims = await Promise.all(keys.map((key) => store.claim({ consumer: 'orders', key, leaseMs: 60_000 })));
  const ends = new Map<string, () => void>();
  const completed: string[] = [];
  const runs = claims.map(async (claim, i) => {
    if (claim.kind !== 'claimed') throw new Error(`claim of ${keys[i]} was ${claim.kind}`);
    await view.running(() => new Promise<void>((resolve) => ends.set(keys[i] as string, resolve)));
    await view.complete({ id: claim.id, token: claim.token });
    completed.push(keys[i] as string);
  });
  const idOf = (key: string) => store.recordId('orders', key);
  /** Ends `key`'s handler, lets one real turn of the event loop pass (the idle rule's), then `ms` of fake time. */
  const finish = async (key: string, ms = 0) => {
    ends.get(key)?.();
    await new Promise((resolve) => nextTurn(resolve));
    await vi.advanceTimersByTimeAsync(ms);
  };
  await vi.advanceTimersByTimeAsync(0);
  return { store, finish, runs, completed, idOf };
}

describe.each(['per-record', 'batched'] as const)('%s completions', (requests) => {
  const timer = requests === 'per-record' ? COMPLETION_WINDOW_MS : MAX_COMPLETION_WAIT_MS;

  it('the last handler to end: its completion goes at once, with those still waiting, not after the timer', async () => {
    const { store, finish, completed, idOf } = await batch(requests, ['a', 'b']);
    const started = Date.now(); // fake time: it moves only when the test moves it
    await finish('a');
    expect(store.requests).toEqual([]); // b still runs: a waits for company
    await finish('b');
    expect(store.requests).toEqual([[idOf('a'), idOf('b')]]);
    expect(completed.sort()).toEqual(['a', 'b']);
    expect(Date.now() - started).toBeLessThan(timer); // sent before the timer could end: the idle rule sent it
  });

  it('a handler still running: a finished record’s completion goes when the timer ends, without it', async () => {
    const { store, finish, completed, idOf } = await batch(requests, ['a', 'b']);
    await finish('a', timer - 1);
    expect(store.requests).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.requests).toEqual([[idOf('a')]]);
    expect(completed).toEqual(['a']);
    await finish('b');
    expect(store.requests).toEqual([[idOf('a')], [idOf('b')]]);
  });
});
