/**
 * The store contract has teeth: stores broken in one rule each fail the
 * case for that rule (with an AssertionError), and the contract's own
 * options are checked. The honest stores pass it in
 * test/integration/store-contract.test.ts.
 */
import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import type { IdempotencyStore } from '../../../src/index.js';
import type { ClaimInput } from '../../../src/engine/store.js';
import { MemoryIdempotencyStore, storeContract, type StoreContractSubject } from '../../../src/testing/index.js';
import type { StoreContractCase, StoreContractSetup } from '../../../src/testing/store-contract.js';
import { withoutBatchedCalls } from '../../support/memory-batch.js';

type Overrides = (inner: MemoryIdempotencyStore) => Partial<IdempotencyStore>;

/** A memory store with some methods replaced by broken ones. */
function broken(overrides: Overrides, build: (setup: StoreContractSetup) => MemoryIdempotencyStore = (s) => new MemoryIdempotencyStore(s)) {
  return (setup: StoreContractSetup): StoreContractSubject => {
    const inner = build(setup);
    const store: IdempotencyStore = { ...withoutBatchedCalls(inner), ...overrides(inner) };
    return {
      store,
      loseFirstResponse: async (call) => {
        inner.loseNextResponse();
        return call();
      },
    };
  };
}

function caseNamed(cases: readonly StoreContractCase[], prefix: string): StoreContractCase {
  const found = cases.find((c) => c.name.startsWith(prefix));
  if (found === undefined) throw new Error(`no case starting with "${prefix}"`);
  return found;
}

async function expectBroken(cases: readonly StoreContractCase[], ...prefixes: string[]): Promise<void> {
  for (const prefix of prefixes) await expect(caseNamed(cases, prefix).run(), prefix).rejects.toBeInstanceOf(AssertionError);
}

const ownerOf = async (inner: MemoryIdempotencyStore, id: string, fallback: string): Promise<string> =>
  (await inner.get(id))?.owner ?? fallback;

describe('storeContract catches a store that breaks a rule', () => {
  it('complete that ignores the owner token: the fencing cases fail', async () => {
    const cases = storeContract(
      broken((inner) => ({ complete: async (i) => inner.complete({ ...i, token: await ownerOf(inner, i.id, i.token) }) })),
    );
    await expectBroken(cases, 'fencing: complete and release with a token', 'fencing: after a takeover');
  });

  it('release that ignores the owner token: the fencing cases fail', async () => {
    const cases = storeContract(
      broken((inner) => ({ release: async (i) => inner.release({ ...i, token: await ownerOf(inner, i.id, i.token) }) })),
    );
    await expectBroken(cases, 'fencing: complete and release with a token', 'fencing: after a takeover');
  });

  it('renew that ignores the owner token: the renew fencing case fails', async () => {
    const cases = storeContract(
      broken((inner) => ({ renew: async (i) => inner.renew({ ...i, token: await ownerOf(inner, i.id, i.token) }) })),
    );
    await expectBroken(cases, 'renew: fenced');
  });

  it('renew that does not move the lease: the renew cases fail; a store without renew fails them unless renew: false', async () => {
    await expectBroken(
      storeContract(broken(() => ({ renew: async () => ({ kind: 'ok' }) }))),
      'renew: the owner extends',
      'renew: a lease that passed',
    );
    await expectBroken(storeContract(broken(() => ({ renew: undefined as never }))), 'renew: the owner extends');
    const honest = (setup: StoreContractSetup): StoreContractSubject => ({ store: new MemoryIdempotencyStore(setup) });
    expect(storeContract(honest, { renew: false }).some((c) => c.name.startsWith('renew'))).toBe(false);
    expect(storeContract(honest).filter((c) => c.name.startsWith('renew')).length).toBe(4);
  });

  it('batched calls that answer out of order or complete without the fence: the batched cases fail', async () => {
    await expectBroken(
      storeContract(broken((inner) => ({ claimMany: async (inputs) => (await inner.claimMany(inputs)).reverse() }))),
      'claimMany (when the store has it)',
    );
    await expectBroken(
      storeContract(
        broken((inner) => ({
          // Completes whoever owns the claim now: the token taken over is not refused.
          completeMany: async (inputs) =>
            inner.completeMany(await Promise.all(inputs.map(async (i) => ({ ...i, token: await ownerOf(inner, i.id, i.token) })))),
        })),
      ),
      'completeMany (when the store has it)',
    );
  });

  it('claim that never takes over an IN_PROGRESS record: the lease-expiry case fails', async () => {
    const cases = storeContract(
      broken((inner) => ({
        claim: async (i: ClaimInput) => {
          const id = inner.recordId(i.consumer, i.key);
          const existing = await inner.get(id);
          return existing?.status === 'IN_PROGRESS' ? { kind: 'in-progress', id, existing } : inner.claim(i);
        },
      })),
    );
    await expectBroken(cases, 'lease expiry:');
  });

  it('a cache of completed records that never expires: the retention case fails', async () => {
    const cases = storeContract(
      broken((inner) => {
        const completed = new Map<string, NonNullable<Awaited<ReturnType<IdempotencyStore['get']>>>>();
        return {
          claim: async (i) => {
            const id = inner.recordId(i.consumer, i.key);
            const cached = completed.get(id);
            return cached === undefined ? inner.claim(i) : { kind: 'completed', id, existing: cached, fromCache: true };
          },
          complete: async (i) => {
            const done = await inner.complete(i);
            if (done.kind === 'ok' && done.record !== undefined) completed.set(i.id, done.record);
            return done;
          },
        };
      }),
    );
    await expectBroken(cases, 'retention: a completed record');
  });

  it('complete that drops the result, and claim that drops the payload hash: their cases fail', async () => {
    await expectBroken(
      storeContract(broken((inner) => ({ complete: (i) => inner.complete({ ...i, storeResult: false }) }))),
      'results: a stored result',
    );
    const noHash = broken((inner) => ({ claim: ({ payloadHash: _hash, ...i }) => inner.claim(i) }));
    await expectBroken(storeContract(noHash), 'payload hash:', 'conditional claim: a free key');
  });

  it('a store that does not know its own retried writes: the own-write cases fail', async () => {
    const forgetful = broken((inner) => ({
      claim: async (i) => {
        const lost = inner.lostResponses;
        const result = await inner.claim(i);
        // What a store without own-write recognition answers when its retry meets its own claim.
        return result.kind === 'claimed' && inner.lostResponses > lost
          ? { kind: 'in-progress', id: result.id, existing: result.record }
          : result;
      },
      complete: async (i) => {
        const lost = inner.lostResponses;
        const result = await inner.complete(i);
        return result.kind === 'ok' && inner.lostResponses > lost
          ? { kind: 'lease-lost', ...(result.record ? { current: result.record } : {}) }
          : result;
      },
    }));
    await expectBroken(storeContract(forgetful), 'own write: a claim', 'own write: a completion');
  });

  it('mark-failed claimed but not kept (the store deletes instead): the FAILED-record case fails', async () => {
    const deleting = broken(
      () => ({}),
      ({ clock, retentionMs }) => new MemoryIdempotencyStore({ clock, retentionMs, release: 'delete' }),
    );
    await expectBroken(storeContract(deleting, { releaseModes: ['mark-failed'] }), 'release (mark-failed)');
  });
});

describe('storeContract options', () => {
  const honest = (setup: StoreContractSetup): StoreContractSubject => ({ store: new MemoryIdempotencyStore(setup) });

  it('refuses a factory that is not a function and unknown or empty release modes, with a TypeError', () => {
    expect(() => storeContract(undefined as never)).toThrow(TypeError);
    expect(() => storeContract(honest, { releaseModes: [] })).toThrow(/releaseModes/);
    expect(() => storeContract(honest, { releaseModes: ['forget' as never] })).toThrow(/releaseModes/);
  });

  it('without the fault hook, the own-write cases fail saying so, unless left out with ownWrite: false', async () => {
    await expect(caseNamed(storeContract(honest), 'own write: a claim').run()).rejects.toThrow(/loseFirstResponse/);
    const without = storeContract(honest, { ownWrite: false });
    expect(without.some((c) => c.name.startsWith('own write'))).toBe(false);
    expect(without.length).toBe(storeContract(honest).length - 2);
  });

  it('runs the FAILED-record case only for a store that supports mark-failed, and disposes every subject', async () => {
    expect(storeContract(honest).some((c) => c.name.startsWith('release (mark-failed)'))).toBe(false);
    let disposed = 0;
    const cases = storeContract((setup) => ({ ...honest(setup), dispose: () => void (disposed += 1) }), {
      releaseModes: ['mark-failed'],
      ownWrite: false,
    });
    for (const c of cases) await c.run();
    expect(disposed).toBe(cases.length);
  });
});
