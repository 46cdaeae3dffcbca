/**
 * The claim strategy's batched requests, per invocation: the batch's claims
 * go to the store together (`claimMany`), and completions that are due at
 * the same time go together (`completeMany`), so a batch costs a few
 * requests' SDK work instead of one per record and write. What runs, and in
 * what order, does not change: a FIFO lane still waits for its record's
 * completion before its next record starts, and each record's outcome is
 * decided by its own answer (the store answers each input as its single
 * call would).
 *
 * Completions are sent eagerly: the first goes at once, and those that
 * come while one is in flight go together when it returns. (Waiting until
 * no handler runs, as group commit does, was measured under the AWS model
 * too; see docs/benchmarks.md.)
 */
import { setImmediate as nextTurn } from 'node:timers';
import type {
  ClaimInput,
  ClaimResult,
  CompleteInput,
  FencedWriteResult,
  IdempotencyStore,
  RenewInput,
  StoreAnswer,
} from '../stores/types.js';

interface Waiting<I, R> {
  readonly input: I;
  readonly resolve: (answer: StoreAnswer<R>) => void;
}

type Send<I, R> = (inputs: readonly I[]) => Promise<StoreAnswer<R>[]>;

/** One queue of a store call: what is waiting, and whether a call is in flight. */
class Queue<I, R> {
  readonly #single: (input: I) => Promise<R>;
  readonly #many: Send<I, R> | undefined;
  readonly #busy: () => boolean;
  readonly #idle: boolean;
  #waiting: Waiting<I, R>[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(single: (input: I) => Promise<R>, many: Send<I, R> | undefined, busy: () => boolean = () => false, idle = false) {
    this.#single = single;
    this.#many = many;
    this.#busy = busy;
    this.#idle = idle;
  }

  /** 'idle': flushes once no handler runs, a turn of the event loop later (the lanes a completion released start theirs in microtasks). */
  schedule(): void {
    if (this.#scheduled || this.#busy() || this.#waiting.length === 0) return;
    this.#scheduled = true;
    nextTurn(() => {
      this.#scheduled = false;
      if (!this.#busy()) void this.#flush();
    });
  }

  /** Queues one call; resolves or rejects as the single call would. */
  call(input: I, when: 'now' | 'turn' | 'idle'): Promise<R> {
    if (this.#many === undefined) return this.#single(input);
    const answer = new Promise<StoreAnswer<R>>((resolve) => this.#waiting.push({ input, resolve }));
    // 'turn': every call made in this synchronous run (a batch's claims) goes in one flush.
    if (when === 'turn' && this.#waiting.length === 1) queueMicrotask(() => void this.#flush());
    if (when === 'now' && this.#inFlight === 0) void this.#flush();
    if (when === 'idle') this.schedule();
    return answer.then((a) => {
      if (a.kind === 'error') throw a.error;
      return a.result;
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#waiting.splice(0);
    if (batch.length === 0) return;
    this.#inFlight += 1;
    let answers: StoreAnswer<R>[];
    try {
      // One call alone goes as itself: a batch of one costs the same request, and its refusal would cost a second.
      answers =
        batch.length === 1 || this.#many === undefined
          ? [await this.#single((batch[0] as Waiting<I, R>).input).then((result) => ({ kind: 'result', result }) as const)]
          : await this.#many(batch.map((w) => w.input));
    } catch (error) {
      answers = batch.map(() => ({ kind: 'error', error }));
    } finally {
      this.#inFlight -= 1;
    }
    batch.forEach((w, i) => {
      w.resolve(answers[i] ?? { kind: 'error', error: new Error('The store gave no answer for this input.') });
    });
    // Those that came while this call was in flight go together now.
    if (this.#idle) this.schedule();
    else if (this.#waiting.length > 0 && this.#inFlight === 0) void this.#flush();
  }
}

/**
 * The store as one batch of the claim strategy sees it: `claim` and
 * `complete` coalesced into the store's batched calls, everything else the
 * store's own. Built per invocation (it holds that batch's queues).
 */
export class CoalescedStore implements IdempotencyStore {
  readonly #store: IdempotencyStore;
  readonly #claims: Queue<ClaimInput, ClaimResult>;
  readonly #completions: Queue<CompleteInput, FencedWriteResult>;
  readonly renew?: (input: RenewInput) => Promise<FencedWriteResult>;
  readonly #policy: 'eager' | 'idle';
  #running = 0;

  private constructor(store: IdempotencyStore, claims: boolean) {
    this.#store = store;
    this.#policy = (store as { completionPolicy?: 'eager' | 'idle' }).completionPolicy ?? 'eager';
    const claimMany = claims ? store.claimMany?.bind(store) : undefined;
    const completeMany = store.completeMany?.bind(store);
    this.#claims = new Queue((input) => store.claim(input), claimMany);
    this.#completions = new Queue(
      (input) => store.complete(input),
      completeMany,
      () => this.#running > 0,
      this.#policy === 'idle',
    );
    const renew = store.renew;
    if (typeof renew === 'function') this.renew = (input) => renew.call(store, input);
  }

  /** A coalescing view of `store` when it has a batched call, else `undefined` (each call goes alone, as always). */
  static over(store: IdempotencyStore, options: { readonly claims: boolean }): CoalescedStore | undefined {
    if (typeof store.claimMany !== 'function' && typeof store.completeMany !== 'function') return undefined;
    return new CoalescedStore(store, options.claims);
  }

  recordId(consumer: string, key: string): string {
    return this.#store.recordId(consumer, key);
  }

  /** Claims made in one synchronous run (a batch's) go to `claimMany` together. */
  claim(input: ClaimInput): Promise<ClaimResult> {
    return this.#claims.call(input, 'turn');
  }

  /** Sent at once when no completion is in flight; otherwise with the others that wait, when it returns. */
  complete(input: CompleteInput): Promise<FencedWriteResult> {
    return this.#completions.call(input, this.#policy === 'idle' ? 'idle' : 'now');
  }

  /** Runs a record's handler, counted as running (the 'idle' policy waits for none to run). */
  async running<T>(handler: () => Promise<T>): Promise<T> {
    this.#running += 1;
    try {
      return await handler();
    } finally {
      this.#running -= 1;
      this.#completions.schedule();
    }
  }

  release(input: Parameters<IdempotencyStore['release']>[0]): Promise<FencedWriteResult> {
    return this.#store.release(input);
  }

  get(id: string): ReturnType<IdempotencyStore['get']> {
    return this.#store.get(id);
  }
}
