/**
 * Group commit for the transaction strategy: a record whose handler has finished waits in a queue, committed in one
 * go (the store's `commitGroup`) once no handler of the batch runs, when every lane waits for its commit or is done.
 * What runs and in what order does not change: a lane still awaits its record's commit before its next record starts
 * (FIFO), and a record's outcome is decided from its own commit answer.
 *
 * When this container has met duplicates often enough (`DuplicateRate`), the batch's idempotency records are read once
 * (`getMany`) while the handlers run, and the commit is handed what was found: a known duplicate then cancels no
 * group. Records the warm-container cache knows as COMPLETED are neither read nor committed. The read is a hint only.
 */
import type { DuplicateRate } from './duplicate-probe.js';
import { WhenIdle } from '../../../engine/when-idle.js';
import { knownCompleted, knowsCompleted } from '../../../engine/warm-cache.js';
import type { IdempotencyRecord } from '../../../engine/record.js';
import type { CommitInput, CommitResult, GroupCommitAnswer, TransactionalIdempotencyStore } from '../../../engine/store.js';
import { settleWithin } from '../../../engine/time.js';

/**
 * How long a commit waits for the duplicate probe's answer, ms. The probe is
 * a hint worth about one cancelled transaction (tens of ms): a read slowed by
 * throttling or the network must not hold the batch's commits back towards
 * the invocation's deadline, so past this bound the commit goes without it.
 */
export const PROBE_WAIT_MS = 250;

/** The probe's answer, or `undefined` (no probe) when it has not come within {@link PROBE_WAIT_MS} of being sent. */
function withinBound<T>(answer: Promise<T | undefined>): Promise<T | undefined> {
  return settleWithin([answer], PROBE_WAIT_MS, undefined, true);
}

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
  readonly #rate: DuplicateRate | undefined;
  /** The probe's answer (`undefined` when it failed); absent when no probe was sent. */
  #found: Promise<ReadonlyMap<string, IdempotencyRecord> | undefined> | undefined;
  #queue: Waiting[] = [];
  readonly #idle = new WhenIdle(
    () => this.#queue.length > 0,
    () => void this.#flush(this.#queue.splice(0)),
  );

  constructor(store: GroupStore, rate?: DuplicateRate) {
    this.#store = store;
    this.#rate = rate;
  }

  /** A group committer when the store can commit groups, else `undefined` (records commit one by one). */
  static for(store: TransactionalIdempotencyStore, mode: CommitMode, rate?: DuplicateRate): GroupCommitter | undefined {
    if (mode !== 'group' || typeof store.commitGroup !== 'function') return undefined;
    return new GroupCommitter(store as GroupStore, rate);
  }

  /**
   * Sends the duplicate probe for the batch's idempotency record ids, when
   * the container's duplicate rate says it pays and the store can read many.
   * Ids the store's warm-container cache knows as COMPLETED are left out, and
   * not counted towards whether the read pays: the commit answers them from
   * the cache first, whatever the read would find. A failed read is no
   * answer: the batch commits as without it.
   */
  probe(ids: readonly string[]): void {
    const store = this.#store;
    const unknown = knowsCompleted(store) ? ids.filter((id) => !store[knownCompleted](id)) : ids;
    if (this.#rate?.wantsProbe(unknown.length) !== true || typeof store.getMany !== 'function') return;
    const getMany = store.getMany.bind(store);
    // Bounded once, from the moment it is sent: every commit round of the batch shares that deadline.
    this.#found = withinBound(
      Promise.resolve()
        .then(() => getMany(unknown))
        .catch(() => undefined),
    );
  }

  /** Runs a record's handler, counted as running: the queue is not committed while a handler may still add to it. */
  running<T>(handler: () => Promise<T>): Promise<T> {
    return this.#idle.running(handler);
  }

  /** Queues a record's commit; resolves or rejects as `store.commit` would for it. */
  commit(input: CommitInput): Promise<CommitResult> {
    const answer = new Promise<GroupCommitAnswer>((resolve) => this.#queue.push({ input, resolve }));
    this.#idle.schedule();
    return answer.then((a) => {
      if (a.kind === 'error') throw a.error;
      return a.result;
    });
  }

  async #flush(batch: readonly Waiting[]): Promise<void> {
    let answers: GroupCommitAnswer[];
    try {
      const found = await this.#found;
      const inputs = batch.map((w) => w.input);
      answers = await this.#store.commitGroup(inputs, found);
    } catch (error) {
      answers = batch.map(() => ({ kind: 'error', error }));
    }
    this.#observe(batch, answers);
    batch.forEach((w, i) => {
      w.resolve(answers[i] ?? { kind: 'error', error: new Error('The group commit gave no answer for this record.') });
    });
  }

  // Duplicates the cache answered cost no commit, so they do not count towards the probe (nor does its read cover them).
  #observe(batch: readonly Waiting[], answers: readonly GroupCommitAnswer[]): void {
    let records = 0;
    let duplicates = 0;
    let items = 0;
    answers.forEach((a, i) => {
      if (a.kind !== 'result' || (a.result.kind === 'duplicate' && a.result.fromCache)) return;
      records += 1;
      if (a.result.kind === 'duplicate') duplicates += 1;
      else items += 1 + (batch[i]?.input.actions.length ?? 0);
    });
    this.#rate?.observe(duplicates, records, items);
  }
}
