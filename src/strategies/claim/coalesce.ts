/**
 * The claim strategy's batched requests, per invocation: the batch's claims go to the store together (`claimMany`),
 * and the completions of finished records together (`completeMany`) once no handler of the batch runs
 * (engine/when-idle.ts, group commit's rule). A batch then costs a few requests' SDK work instead of one per record and
 * write: on a 256 MB Lambda (~0.15 vCPU) that CPU is most of its duration.
 *
 * What runs, and in what order, does not change: a FIFO lane still waits for its record's completion, and each
 * record's outcome is its own answer. Completions sent eagerly instead cost more CPU, were slower at 25 % duplicates
 * and no faster at 1 % under the AWS model (docs/benchmarks.md, coalescing policy).
 */
import { WhenIdle } from '../../engine/when-idle.js';
import type {
  ClaimInput,
  ClaimResult,
  CompleteInput,
  FencedWriteResult,
  IdempotencyStore,
  ReleaseInput,
  StoreAnswer,
} from '../../engine/store.js';

interface Waiting<I, R> {
  readonly input: I;
  readonly resolve: (answer: StoreAnswer<R>) => void;
}

/** One store call's queue: the inputs waiting, sent in one batched call (one alone goes as the single call). */
class Queue<I, R> {
  readonly #single: (input: I) => Promise<R>;
  readonly #many: (inputs: readonly I[]) => Promise<StoreAnswer<R>[]>;
  #waiting: Waiting<I, R>[] = [];

  constructor(single: (input: I) => Promise<R>, many: (inputs: readonly I[]) => Promise<StoreAnswer<R>[]>) {
    this.#single = single;
    this.#many = many;
  }

  get size(): number {
    return this.#waiting.length;
  }

  /** Queues one call; resolves or rejects as the single call would. */
  add(input: I): Promise<R> {
    const answer = new Promise<StoreAnswer<R>>((resolve) => this.#waiting.push({ input, resolve }));
    return answer.then((a) => {
      if (a.kind === 'error') throw a.error;
      return a.result;
    });
  }

  async flush(): Promise<void> {
    const batch = this.#waiting.splice(0);
    if (batch.length === 0) return;
    let answers: StoreAnswer<R>[];
    try {
      // One alone goes as itself: a batch of one costs the same request, and its refusal may cost a second.
      answers =
        batch.length === 1
          ? [{ kind: 'result', result: await this.#single((batch[0] as Waiting<I, R>).input) }]
          : await this.#many(batch.map((w) => w.input));
    } catch (error) {
      answers = batch.map(() => ({ kind: 'error', error }));
    }
    batch.forEach((w, i) => {
      w.resolve(answers[i] ?? { kind: 'error', error: new Error('The store gave no answer for this input.') });
    });
  }
}

/**
 * The longest a finished record's completion waits for the handlers still running, ms: until it lands, a crash would
 * let a redelivery run the effect again, so one slow handler must not hold the others back. Under the AWS model a
 * batch's handlers all finish within it (a single write: p99 16 ms), so the common batch is not split.
 */
export const MAX_COMPLETION_WAIT_MS = 25;

type BatchedStore = IdempotencyStore & Required<Pick<IdempotencyStore, 'claimMany' | 'completeMany'>>;

/**
 * The store as one batch of the claim strategy sees it: `claim` and
 * `complete` coalesced into the store's batched calls, `release` and `get`
 * the store's own. No `renew`: the heartbeat renews through the store
 * itself (claimBatchStrategy). Built per invocation: it holds that batch's
 * queues.
 */
export class CoalescedStore implements IdempotencyStore {
  readonly #store: IdempotencyStore;
  readonly #claims: Queue<ClaimInput, ClaimResult>;
  readonly #completions: Queue<CompleteInput, FencedWriteResult>;
  #claimsScheduled = false;
  #completionTimer: NodeJS.Timeout | undefined;
  readonly #idle = new WhenIdle(
    () => this.#completions.size > 0,
    () => this.#flushCompletions(),
  );

  private constructor(store: BatchedStore) {
    this.#store = store;
    this.#claims = new Queue(
      (input) => store.claim(input),
      (inputs) => store.claimMany(inputs),
    );
    this.#completions = new Queue(
      (input) => store.complete(input),
      (inputs) => store.completeMany(inputs),
    );
  }

  /** A coalescing view of `store` when it has both batched calls, else `undefined` (each call goes alone, as always). */
  static over(store: IdempotencyStore): CoalescedStore | undefined {
    if (typeof store.claimMany !== 'function' || typeof store.completeMany !== 'function') return undefined;
    return new CoalescedStore(store as BatchedStore);
  }

  recordId(consumer: string, key: string): string {
    return this.#store.recordId(consumer, key);
  }

  /** The claims made in one synchronous run (a batch's, all started at once) go in one `claimMany`. */
  claim(input: ClaimInput): Promise<ClaimResult> {
    const answer = this.#claims.add(input);
    if (!this.#claimsScheduled) {
      this.#claimsScheduled = true;
      queueMicrotask(() => {
        this.#claimsScheduled = false;
        void this.#claims.flush();
      });
    }
    return answer;
  }

  /** Waits until no handler of the batch runs, then goes with every completion due by then. */
  complete(input: CompleteInput): Promise<FencedWriteResult> {
    const answer = this.#completions.add(input);
    if (this.#completionTimer === undefined) {
      // Not unref'd: for these few ms it is what the invocation waits on, and a flush clears it.
      this.#completionTimer = setTimeout(() => this.#flushCompletions(), MAX_COMPLETION_WAIT_MS);
    }
    this.#idle.schedule();
    return answer;
  }

  release(input: ReleaseInput): Promise<FencedWriteResult> {
    return this.#store.release(input);
  }

  get(id: string): ReturnType<IdempotencyStore['get']> {
    return this.#store.get(id);
  }

  /** Runs a record's handler, counted as running: completions are not sent while a handler may still add one. */
  running<T>(handler: () => Promise<T>): Promise<T> {
    return this.#idle.running(handler);
  }

  #flushCompletions(): void {
    clearTimeout(this.#completionTimer);
    this.#completionTimer = undefined;
    void this.#completions.flush();
  }
}
