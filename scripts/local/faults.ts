/**
 * Transient faults for the local run: a chosen set of keys fails on its first
 * attempt only, like a timeout from a flaky dependency, so each one shows a
 * retry that then succeeds. Decided by key, not by call order, so the same
 * seed injects the same faults whatever the scheduling.
 */
import type { TransactionalIdempotencyStore } from '../../src/index.js';
import type { CommitInput, CommitResult } from '../../src/engine/store.js';

/** The error an injected fault throws; its name makes it easy to find in the logs. */
export class InjectedFault extends Error {
  override readonly name = 'InjectedFault';
}

/** Fails the first call per selected key, passes every other call. */
export class FirstAttemptFault {
  readonly #keys: ReadonlySet<string>;
  readonly #seen = new Set<string>();
  #injected = 0;

  constructor(
    readonly what: string,
    keys: ReadonlySet<string>,
  ) {
    this.#keys = keys;
  }

  /** Faults injected so far. */
  get injected(): number {
    return this.#injected;
  }

  /** Throws {@link InjectedFault} on the first call for a selected key. */
  hit(key: string): void {
    if (!this.#keys.has(key) || this.#seen.has(key)) return;
    this.#seen.add(key);
    this.#injected += 1;
    throw new InjectedFault(`${this.what} failed transiently for ${key} (injected, first attempt only)`);
  }
}

/**
 * The store with a fault in front of `commit`: the transaction strategy's
 * one request, so the points handler fails before anything is written and
 * Lambda's async retry has to deliver the event again.
 */
export function storeWithCommitFault(store: TransactionalIdempotencyStore, fault: FirstAttemptFault): TransactionalIdempotencyStore {
  return storeWith(store, {
    commit: async (input: CommitInput): Promise<CommitResult> => {
      fault.hit(input.key);
      return store.commit(input);
    },
  });
}

/**
 * `store` with some methods replaced; the others call `store`'s own (bound,
 * so a class instance such as `DynamoDBIdempotencyStore` keeps working: a
 * spread would drop its prototype methods).
 */
export function storeWith(
  store: TransactionalIdempotencyStore,
  overrides: Partial<TransactionalIdempotencyStore>,
): TransactionalIdempotencyStore {
  const claimMany = store.claimMany?.bind(store);
  const completeMany = store.completeMany?.bind(store);
  return {
    recordId: (consumer, key) => store.recordId(consumer, key),
    claim: (input) => store.claim(input),
    complete: (input) => store.complete(input),
    release: (input) => store.release(input),
    get: (id) => store.get(id),
    commit: (input) => store.commit(input),
    // The batched claim calls are the DynamoDB store's default claim path: a wrapper that dropped them would run every claim alone.
    ...(claimMany === undefined ? {} : { claimMany }),
    ...(completeMany === undefined ? {} : { completeMany }),
    ...overrides,
  };
}
