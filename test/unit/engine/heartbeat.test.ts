/**
 * The lease heartbeat on its own (src/engine/heartbeat.ts) over the memory
 * store: renewals move the lease; a refused renewal aborts the signal with a
 * `LeaseLostError`; a renewal error is not a loss until a whole lease passes
 * without a successful renewal; stop() stops renewing.
 */
import { describe, expect, it } from 'vitest';
import { heartbeatPeriod, leaseUnproven } from '../../../src/engine/lease.js';
import { LeaseLostError } from '../../../src/index.js';
import { keepLease } from '../../../src/engine/heartbeat.js';
import type { RenewableIdempotencyStore } from '../../../src/engine/store.js';
import { MemoryIdempotencyStore } from '../../../src/testing/index.js';

const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

async function claimed(store: MemoryIdempotencyStore, key: string) {
  const claim = await store.claim({ consumer: 'hb', key, leaseMs: 600 });
  if (claim.kind !== 'claimed') throw new Error('not claimed');
  return { id: claim.id, token: claim.token, key };
}

/** A store whose renewals fail with `error` while `failing()` says so, counting calls. */
function flaky(inner: MemoryIdempotencyStore, failing: (call: number) => boolean) {
  let calls = 0;
  const store: RenewableIdempotencyStore = {
    recordId: (c, k) => inner.recordId(c, k),
    claim: (i) => inner.claim(i),
    complete: (i) => inner.complete(i),
    release: (i) => inner.release(i),
    get: (id) => inner.get(id),
    renew: async (i) => {
      calls += 1;
      if (failing(calls)) throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      return inner.renew(i);
    },
  };
  return { store, calls: () => calls };
}

describe('lease heartbeat', () => {
  it('the period is everyMs, at most a third of the lease; a lease is unproven once a whole lease passed', () => {
    expect(heartbeatPeriod(900, undefined)).toBe(300);
    expect(heartbeatPeriod(900, 100)).toBe(100);
    expect(heartbeatPeriod(900, 5_000)).toBe(300);
    expect(heartbeatPeriod(1, undefined)).toBe(1);
    expect(leaseUnproven(1_000, 600, 1_599)).toBe(false);
    expect(leaseUnproven(1_000, 600, 1_600)).toBe(true);
  });

  it('renews the lease while running and stops when told', async () => {
    const inner = new MemoryIdempotencyStore();
    const claim = await claimed(inner, 'renewed');
    const before = (await inner.get(claim.id))?.leaseUntil ?? 0;
    const { store, calls } = flaky(inner, () => false);
    const keeper = keepLease({ store, leaseMs: 600, everyMs: 20, since: Date.now() }, claim);
    while (calls() < 3) await new Promise((r) => setTimeout(r, 10));
    await keeper.stop();
    const after = calls();
    expect((await inner.get(claim.id))?.leaseUntil ?? 0).toBeGreaterThan(before);
    await new Promise((r) => setTimeout(r, 100));
    expect(calls()).toBe(after);
    expect(keeper.signal.aborted).toBe(false);
  });

  it('a renewal refused by the owner token aborts the signal with a LeaseLostError carrying the current record', async () => {
    const inner = new MemoryIdempotencyStore();
    const claim = await claimed(inner, 'stolen');
    const keeper = keepLease({ store: inner, leaseMs: 600, everyMs: 20, since: Date.now() }, { ...claim, token: 'not-ours' });
    await aborted(keeper.signal);
    expect(keeper.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(keeper.lost).toBe(keeper.signal.reason);
    expect(keeper.lost?.existing?.owner).toBe(claim.token);
  });

  it('a renewal error is retried at the next tick, not a loss', async () => {
    const inner = new MemoryIdempotencyStore();
    const claim = await claimed(inner, 'throttled-once');
    const { store, calls } = flaky(inner, (call) => call === 1);
    const keeper = keepLease({ store, leaseMs: 600, everyMs: 20, since: Date.now() }, claim);
    while (calls() < 4) await new Promise((r) => setTimeout(r, 10));
    await keeper.stop();
    expect(keeper.signal.aborted).toBe(false);
  });

  it('renewals failing for a whole lease abort the signal: ownership can no longer be proven', async () => {
    const inner = new MemoryIdempotencyStore();
    const claim = await claimed(inner, 'throttled-always');
    const { store, calls } = flaky(inner, () => true);
    const keeper = keepLease({ store, leaseMs: 600, everyMs: 20, since: Date.now() }, claim);
    await aborted(keeper.signal);
    expect(keeper.lost).toBeInstanceOf(LeaseLostError);
    expect(keeper.lost?.message).toMatch(/can no longer be proven/);
    expect((keeper.lost?.cause as Error | undefined)?.name).toBe('ThrottlingException');
    expect(calls()).toBeGreaterThan(1);
  });
});
