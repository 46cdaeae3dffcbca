/**
 * The claim strategy's requests for one invocation's batch, in the pattern chosen for it (requests.ts):
 *
 * - `batched`: the batch's claims go to the store together (`claimMany`), and the completions of finished records
 *   together (`completeMany`) once no handler of the batch runs (engine/when-idle.ts, group commit's rule). A batch then
 *   costs a few requests' SDK work instead of one per record and write: below a third of a vCPU that CPU is most of
 *   its duration.
 * - `per-record`: each claim goes alone (a conditional `PutItem` decides a duplicate in its one round trip, where a
 *   PartiQL batch needs a read after it), and a record's completion leaves as soon as its effect ends, with the
 *   completions that become due within {@link COMPLETION_WINDOW_MS}: no record waits for the slowest of the batch.
 *   Once no handler of the batch runs, nothing more can join, so what waits goes then without the rest of the
 *   window: the batch's last completion, which its duration waits on, never waits for company that cannot come.
 *
 * What runs, and in what order, does not change: a FIFO lane still waits for its record's completion, and each
 * record's outcome is its own answer.
 */
import { WhenIdle } from '../../engine/when-idle.js';
import type { ClaimRequests } from './requests.js';
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

/**
 * `per-record`: how long a finished record's completion waits for others to share its request, ms. Long enough for the
 * completions of effects that end together (one tick apart) to go as one, short against a round trip.
 */
export const COMPLETION_WINDOW_MS = 2;

type BatchedStore = IdempotencyStore & Required<Pick<IdempotencyStore, 'claimMany' | 'completeMany'>>;

/**
 * The store as one batch of the claim strategy sees it: `claim` (`batched`)
 * and `complete` coalesced into the store's batched calls, `release` and `get`
 * the store's own. No `renew`: the heartbeat renews through the store
 * itself (claimBatchStrategy). Built per invocation: it holds that batch's
 * queues.
 */
export class CoalescedStore implements IdempotencyStore {
  readonly requests: ClaimRequests;
  readonly #store: IdempotencyStore;
  readonly #claims: Queue<ClaimInput, ClaimResult>;
  readonly #completions: Queue<CompleteInput, FencedWriteResult>;
  #claimsScheduled = false;
  #completionTimer: NodeJS.Timeout | undefined;
  readonly #idle = new WhenIdle(
    () => this.#completions.size > 0,
    () => this.#flushCompletions(),
  );

  private constructor(store: BatchedStore, requests: ClaimRequests) {
    this.requests = requests;
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
  static over(store: IdempotencyStore, requests: ClaimRequests): CoalescedStore | undefined {
    if (typeof store.claimMany !== 'function' || typeof store.completeMany !== 'function') return undefined;
    return new CoalescedStore(store as BatchedStore, requests);
  }

  recordId(consumer: string, key: string): string {
    return this.#store.recordId(consumer, key);
  }

  /** `batched`: the claims made in one synchronous run (a batch's, all started at once) go in one `claimMany`. */
  claim(input: ClaimInput): Promise<ClaimResult> {
    if (this.requests === 'per-record') return this.#store.claim(input);
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

  /**
   * Goes with every completion due by then, once no handler of the batch runs, or at the latest when its timer ends:
   * `batched`, {@link MAX_COMPLETION_WAIT_MS}; `per-record`, the {@link COMPLETION_WINDOW_MS} window.
   */
  complete(input: CompleteInput): Promise<FencedWriteResult> {
    const answer = this.#completions.add(input);
    if (this.#completionTimer === undefined) {
      // Not unref'd: for these few ms it is what the invocation waits on, and a flush clears it.
      const wait = this.requests === 'batched' ? MAX_COMPLETION_WAIT_MS : COMPLETION_WINDOW_MS;
      this.#completionTimer = setTimeout(() => this.#flushCompletions(), wait);
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

  /** Runs a record's handler, counted as running: once none runs, the completions waiting go without their timer. */
  running<T>(handler: () => Promise<T>): Promise<T> {
    return this.#idle.running(handler);
  }

  #flushCompletions(): void {
    clearTimeout(this.#completionTimer);
    this.#completionTimer = undefined;
    void this.#completions.flush();
  }
}
