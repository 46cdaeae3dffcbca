/**
 * The one claim-and-decide routine (src/engine/claim-decide.ts) and the one
 * finish routine (src/engine/finish.ts) against the memory store: each
 * decision (claimed, payload mismatch, duplicate with its stored result, in
 * progress, the wait ending in each way, a durable execution resuming its
 * own claim) and each completion (done, done without its result, lease
 * lost, refused).
 */
import { describe, expect, it } from 'vitest';
import { ownerWait } from '../../../src/engine/wait.js';
import { claimAndDecide, decisionOutcome, resumeOwnClaim, type ClaimAsk } from '../../../src/engine/claim-decide.js';
import { completeClaim, releaseHeld } from '../../../src/engine/finish.js';
import { UnstorableResultError } from '../../../src/engine/errors.js';
import { IdempotencyInProgressError, LeaseLostError, PayloadMismatchError } from '../../../src/index.js';
import type { IdempotencyStore } from '../../../src/engine/store.js';
import { ManualClock, MemoryIdempotencyStore } from '../../../src/testing/index.js';

const wording = { differs: 'a different payload', holder: 'invocation' };
const policy = { maxMs: 5_000, initialDelayMs: 2, maxDelayMs: 10 };

function ask(
  store: IdempotencyStore,
  more: Partial<ClaimAsk> & { payloadHash?: string; messageId?: string; leaseMs?: number } = {},
): ClaimAsk {
  const { payloadHash, messageId, leaseMs, ...rest } = more;
  const claim = {
    consumer: 'c',
    key: 'k',
    leaseMs: leaseMs ?? 30_000,
    ...(payloadHash === undefined ? {} : { payloadHash }),
    ...(messageId === undefined ? {} : { messageId }),
  };
  return { store, claim, wording, ...rest };
}

async function claimed(store: IdempotencyStore, more: Parameters<typeof ask>[1] = {}) {
  const decision = await claimAndDecide(ask(store, more));
  if (decision.kind !== 'claimed') throw new Error(`expected a claim, got ${decision.kind}`);
  return decision;
}

describe('claimAndDecide', () => {
  it('claims a free key: its token fences the completion', async () => {
    const store = new MemoryIdempotencyStore();
    const decision = await claimed(store);
    expect(decision).toMatchObject({ id: 'c#k', key: 'k', resumed: false });
    expect((await store.get('c#k'))?.owner).toBe(decision.token);
  });

  it('a completed key is a duplicate carrying the stored result; its outcome is a duplicate', async () => {
    const store = new MemoryIdempotencyStore();
    const first = await claimed(store);
    await store.complete({ id: first.id, token: first.token, result: { n: 1 }, storeResult: true });
    const second = await claimAndDecide(ask(store));
    expect(second.kind).toBe('duplicate');
    if (second.kind !== 'duplicate') return;
    expect(second.existing.result).toEqual({ n: 1 });
    expect(decisionOutcome(second, 'm-2')).toMatchObject({ kind: 'duplicate', messageId: 'm-2', key: 'k', fromCache: false });
  });

  it('another payload under a recorded key is a mismatch (before done or in progress), its outcome invalid', async () => {
    const store = new MemoryIdempotencyStore();
    await claimed(store, { payloadHash: 'a'.repeat(64) });
    const live = await claimAndDecide(ask(store, { payloadHash: 'b'.repeat(64) }));
    expect(live.kind).toBe('mismatch');
    if (live.kind !== 'mismatch') return;
    expect(live.error).toBeInstanceOf(PayloadMismatchError);
    // What happened, then what to do about it: the option that narrows the payload, and where it is explained.
    expect(live.error.message).toMatch(
      /^Key already recorded under c#k with a different payload\. If re-sends .* set the option payload .* see docs\/options\.md#the-payload-check\.$/,
    );
    expect(live.error.key).toBe('k');
    expect(decisionOutcome(live, 'm')).toMatchObject({ kind: 'invalid', error: live.error });
  });

  it('a live claim of another holder is in progress, with an IdempotencyInProgressError naming the record', async () => {
    const store = new MemoryIdempotencyStore();
    const first = await claimed(store);
    const second = await claimAndDecide(ask(store));
    expect(second.kind).toBe('in-progress');
    if (second.kind !== 'in-progress') return;
    expect(second.error).toBeInstanceOf(IdempotencyInProgressError);
    expect(second.error.message).toBe('c#k is being processed by another invocation.');
    expect(second.existing.owner).toBe(first.token);
    expect(decisionOutcome(second, 'm')).toMatchObject({ kind: 'in-progress', key: 'k' });
  });

  it('a claim whose lease has passed is claimed again (a crashed holder)', async () => {
    const clock = new ManualClock();
    const store = new MemoryIdempotencyStore({ clock });
    const first = await claimed(store, { leaseMs: 1_000 });
    clock.advance(1_000);
    const second = await claimed(store);
    expect(second.token).not.toBe(first.token);
  });

  it('waiting: the owner completing makes it a duplicate of what the owner stored', async () => {
    const store = new MemoryIdempotencyStore();
    const first = await claimed(store);
    setTimeout(() => void store.complete({ id: first.id, token: first.token, result: 'done', storeResult: true }), 5);
    const waited = await claimAndDecide(ask(store, { wait: ownerWait(Date.now() + 5_000, policy) }));
    expect(waited.kind).toBe('duplicate');
    if (waited.kind === 'duplicate') expect(waited.existing.result).toBe('done');
  });

  it('waiting: the owner releasing lets the waiter claim the key itself', async () => {
    const store = new MemoryIdempotencyStore();
    const first = await claimed(store);
    setTimeout(() => void store.release({ id: first.id, token: first.token }), 5);
    const waited = await claimAndDecide(ask(store, { wait: ownerWait(Date.now() + 5_000, policy) }));
    expect(waited.kind).toBe('claimed');
    if (waited.kind === 'claimed') expect(waited.token).not.toBe(first.token);
  });

  it('waiting: a deadline already spent, or one the owner outlasts, ends in progress', async () => {
    const store = new MemoryIdempotencyStore();
    await claimed(store);
    expect((await claimAndDecide(ask(store, { wait: ownerWait(Date.now() - 1, policy) }))).kind).toBe('in-progress');
    const short = { maxMs: 20, initialDelayMs: 2, maxDelayMs: 4 };
    expect((await claimAndDecide(ask(store, { wait: ownerWait(Date.now() + 20, short) }))).kind).toBe('in-progress');
  });

  it('a store error is thrown, for the caller to fail that one record', async () => {
    const store = new MemoryIdempotencyStore();
    const failing: IdempotencyStore = {
      recordId: (c, k) => store.recordId(c, k),
      claim: async () => {
        throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      },
      complete: (i) => store.complete(i),
      release: (i) => store.release(i),
      get: (id) => store.get(id),
    };
    await expect(claimAndDecide(ask(failing))).rejects.toThrow('throttled');
  });
});

describe('claimAndDecide for a durable execution', () => {
  const execution = { marker: 'durable:arn:aws:lambda:eu-west-1:1:function:f/durable-execution/a', resume: resumeOwnClaim };
  const other = { marker: 'durable:arn:aws:lambda:eu-west-1:1:function:f/durable-execution/b', resume: resumeOwnClaim };

  it('a replay of the same execution resumes its own claim: same token, lease renewed from now', async () => {
    const clock = new ManualClock();
    const store = new MemoryIdempotencyStore({ clock });
    const first = await claimed(store, { execution, messageId: execution.marker, leaseMs: 10_000 });
    clock.advance(9_000);
    const replay = await claimed(store, { execution, messageId: execution.marker, leaseMs: 10_000 });
    expect(replay).toMatchObject({ token: first.token, resumed: true });
    expect((await store.get(first.id))?.leaseUntil).toBe(clock.now() + 10_000);
    expect((await store.get(first.id))?.attempts).toBe(1);
  });

  it('another execution with the same key is in progress while the first holds it, a duplicate once it completed', async () => {
    const store = new MemoryIdempotencyStore();
    const first = await claimed(store, { execution, messageId: execution.marker });
    const second = await claimAndDecide(ask(store, { execution: other, messageId: other.marker }));
    expect(second.kind).toBe('in-progress');
    await store.complete({ id: first.id, token: first.token, result: 7, storeResult: true });
    const third = await claimAndDecide(ask(store, { execution: other, messageId: other.marker }));
    expect(third).toMatchObject({ kind: 'duplicate', existing: { result: 7 } });
    // The same execution replaying after its completion landed gets its own stored result too.
    expect(await claimAndDecide(ask(store, { execution, messageId: execution.marker }))).toMatchObject({ kind: 'duplicate' });
  });

  it('a claim not made by an execution is never resumed, even by a call that names one', async () => {
    const store = new MemoryIdempotencyStore();
    await claimed(store, { messageId: 'evt-1' });
    expect((await claimAndDecide(ask(store, { execution, messageId: execution.marker }))).kind).toBe('in-progress');
  });

  it('its own claim changing hands before the renewal lands: it claims again', async () => {
    const store = new MemoryIdempotencyStore();
    const first = await claimed(store, { execution, messageId: execution.marker });
    let renewals = 0;
    const racing: IdempotencyStore = {
      recordId: (c, k) => store.recordId(c, k),
      claim: (i) => store.claim(i),
      complete: (i) => store.complete(i),
      release: (i) => store.release(i),
      get: (id) => store.get(id),
      renew: async (i) => {
        renewals += 1;
        await store.release({ id: first.id, token: first.token }); // e.g. an operator's forget, just before
        return store.renew(i);
      },
    };
    const replay = await claimed(racing, { execution, messageId: execution.marker });
    expect(renewals).toBe(1);
    expect(replay.resumed).toBe(false);
    expect(replay.token).not.toBe(first.token);
  });
});

describe('completeClaim / releaseHeld', () => {
  async function held(store: MemoryIdempotencyStore) {
    const d = await claimed(store);
    return { id: d.id, key: d.key, token: d.token };
  }

  it('completes with the result, or records the key done without a result it cannot store', async () => {
    const store = new MemoryIdempotencyStore();
    const claim = await held(store);
    expect(await completeClaim(store, claim, { ok: 1 }, true)).toEqual({ kind: 'completed' });
    expect((await store.get(claim.id))?.result).toEqual({ ok: 1 });

    const other = new MemoryIdempotencyStore();
    const big = await held(other);
    const done = await completeClaim(other, big, { n: 10n }, true);
    expect(done.kind).toBe('completed-without-result');
    if (done.kind === 'completed-without-result') expect(done.error).toBeInstanceOf(UnstorableResultError);
    expect(await other.get(big.id)).toMatchObject({ status: 'COMPLETED' });
    expect((await other.get(big.id))?.result).toBeUndefined();
  });

  it('a claim taken over is lease-lost (also when found on the retry without the result); a refused request is failed', async () => {
    const clock = new ManualClock();
    const store = new MemoryIdempotencyStore({ clock });
    const first = await held(store);
    clock.advance(30_000);
    const thief = await held(store);
    const lost = await completeClaim(store, first, { n: 10n }, true);
    expect(lost.kind).toBe('lease-lost');
    if (lost.kind === 'lease-lost') expect(lost.error).toBeInstanceOf(LeaseLostError);
    expect((await store.get(thief.id))?.owner).toBe(thief.token);

    const refusing: IdempotencyStore = {
      recordId: (c, k) => store.recordId(c, k),
      claim: (i) => store.claim(i),
      complete: async () => {
        throw new Error('network');
      },
      release: (i) => store.release(i),
      get: (id) => store.get(id),
    };
    expect(await completeClaim(refusing, thief, 1, true)).toMatchObject({ kind: 'failed', error: { message: 'network' } });
  });

  it('releasing frees the key; a failed release never throws', async () => {
    const store = new MemoryIdempotencyStore();
    const claim = await held(store);
    await releaseHeld(store, claim, new Error('boom'));
    expect(await store.get(claim.id)).toBeUndefined();
    const broken = { ...store, release: async () => Promise.reject(new Error('down')) } as unknown as IdempotencyStore;
    await expect(releaseHeld(broken, claim)).resolves.toBeUndefined();
  });
});
