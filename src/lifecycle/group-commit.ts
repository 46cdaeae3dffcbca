/**
 * Group commit for the transaction strategy: a record whose handler has
 * finished waits in a queue, and the queue is committed in one go (see the
 * store's `commitGroup`) once no handler of the batch is running, that is
 * when every lane is waiting for its commit or done. The records that run
 * and the order they run in do not change: a lane still awaits its record's
 * commit before its next record starts (FIFO), and a record's outcome is
 * still decided from its own commit answer.
 */
import { setImmediate as nextTurn } from 'node:timers';
import type { CommitInput, CommitResult, GroupCommitAnswer, TransactionalIdempotencyStore } from '../store/types.js';

/** How a record's commit is sent: one `TransactWriteItems` per record, or group commit. */
export type CommitMode = 'group' | 'record';

interface Waiting {
  readonly input: CommitInput;
  readonly resolve: (answer: GroupCommitAnswer) => void;
}

type GroupStore = TransactionalIdempotencyStore & Required<Pick<TransactionalIdempotencyStore, 'commitGroup'>>;

/** The per-batch commit queue. */
export class GroupCommitter {
  readonly #store: GroupStore;
  #running = 0;
  #queue: Waiting[] = [];
  #scheduled = false;

  constructor(store: GroupStore) {
    this.#store = store;
  }

  /** A group committer when the store can commit groups, else `undefined` (records commit one by one). */
  static for(store: TransactionalIdempotencyStore, mode: CommitMode): GroupCommitter | undefined {
    if (mode !== 'group' || typeof store.commitGroup !== 'function') return undefined;
    return new GroupCommitter(store as GroupStore);
  }

  /** Runs a record's handler, counted as running: the queue is not committed while a handler may still add to it. */
  async running<T>(handler: () => Promise<T>): Promise<T> {
    this.#running += 1;
    try {
      return await handler();
    } finally {
      this.#running -= 1;
      this.#schedule();
    }
  }

  /** Queues a record's commit; resolves or rejects as `store.commit` would for it. */
  commit(input: CommitInput): Promise<CommitResult> {
    const answer = new Promise<GroupCommitAnswer>((resolve) => this.#queue.push({ input, resolve }));
    this.#schedule();
    return answer.then((a) => {
      if (a.kind === 'error') throw a.error;
      return a.result;
    });
  }

  // Waits a turn of the event loop before deciding: the lanes a commit just
  // released start their next handler in microtasks, and must be counted first.
  #schedule(): void {
    if (this.#scheduled || this.#running > 0 || this.#queue.length === 0) return;
    this.#scheduled = true;
    nextTurn(() => {
      this.#scheduled = false;
      if (this.#running > 0 || this.#queue.length === 0) return;
      void this.#flush(this.#queue.splice(0));
    });
  }

  async #flush(batch: readonly Waiting[]): Promise<void> {
    let answers: GroupCommitAnswer[];
    try {
      answers = await this.#store.commitGroup(batch.map((w) => w.input));
    } catch (error) {
      answers = batch.map(() => ({ kind: 'error', error }));
    }
    batch.forEach((w, i) => {
      w.resolve(answers[i] ?? { kind: 'error', error: new Error('The group commit gave no answer for this record.') });
    });
  }
}
