/**
 * The transaction strategy's steps: before the handler, the records are only validated (a transaction claims nothing:
 * its commit is conditional on the key being free when it lands); each handler builds its writes on `tx`, committed
 * with the idempotency record in one `TransactWriteItems`. With group commit (the default) the batch's commits queue
 * and go together when no handler runs, after the duplicate probe the container's duplicate rate asks for.
 */
import type { ConflictPolicy } from './commit-step.js';
import { asTransactional, runTransactional } from './commit-step.js';
import { DuplicateRate, type ProbeMode } from './group-commit/duplicate-probe.js';
import { GroupCommitter, type CommitMode } from './group-commit/queue.js';
import type { RecordOutcome } from '../../engine/outcomes.js';
import type { Execution, OwnedRecord } from '../../engine/settle.js';
import { idOf } from '../../engine/source.js';
import type { CommitInput } from '../../engine/store.js';
import type { AdmittedRecord, BatchStrategy, HandlerAnswer, RunHandler, StepSettings, AdmittedBatch } from '../types.js';

/** What the transaction strategy's steps are built from: the middleware's settings, and `transaction()`'s own. */
export interface TransactionSettings extends Pick<StepSettings, 'store' | 'storeResult'> {
  readonly onConflict: ConflictPolicy;
  /** Group commit (default) or one commit per record. */
  readonly commit?: CommitMode | undefined;
  /** Group commit: when the batch's idempotency records are read before the commit (default 'auto'). */
  readonly probeDuplicates?: ProbeMode | undefined;
}

/** One invocation's batch under the transaction strategy, with its group-commit queue. */
/** A transaction holds no claim before it commits: nothing to claim afresh, give up or stop (no `claim`, `release`, `finish`). */
class TransactionBatch<TRecord> implements AdmittedBatch<TRecord> {
  readonly admissions: readonly AdmittedRecord<TRecord>[];
  readonly handsOwned = true;
  readonly #settings: TransactionSettings;
  readonly #consumer: string;
  readonly #committer: GroupCommitter | undefined;

  constructor(settings: TransactionSettings, consumer: string, admissions: readonly AdmittedRecord<TRecord>[], rate: DuplicateRate) {
    this.#settings = settings;
    this.#consumer = consumer;
    this.admissions = admissions;
    this.#committer = GroupCommitter.for(asTransactional(settings.store), settings.commit ?? 'group', rate);
    // The duplicate probe (group commit) is sent now, while the handlers build their writes.
    this.#committer?.probe(admissions.flatMap((a) => (a.kind === 'owned' ? [a.owned.id] : [])));
  }

  run(owned: OwnedRecord, handler: RunHandler, timeLeftMs: () => number): Promise<RecordOutcome> {
    const { storeResult, onConflict } = this.#settings;
    const committer = this.#committer;
    const via = committer === undefined ? {} : { via: (input: CommitInput) => committer.commit(input) };
    // A commit cancelled by contention is tried again, but never into the safety margin.
    const options = { storeResult, onConflict, retry: { timeLeftMs }, ...via };
    return runTransactional(asTransactional(this.#settings.store), { ...owned, consumer: this.#consumer }, options, (tx) =>
      committer === undefined ? handler(tx) : committer.running(() => handler(tx)),
    );
  }

  /** A handler that never called `eachRecord` committed nothing: every record comes back. */
  answeredByHandler({ source, owner, leaders }: HandlerAnswer<TRecord>): Map<string, Execution> {
    const error = new TypeError(`${owner}: strategy "transaction" needs the handler wrapped in eachRecord().`);
    return new Map(leaders.map((record) => [idOf(source, record), { kind: 'threw', error, aboutTheBatch: true }] as const));
  }
}

/** The transaction strategy, as the batch middleware uses it. */
export function transactionBatchStrategy(settings: TransactionSettings): BatchStrategy {
  // Group commit's duplicate probe follows this container's recent duplicates (across invocations).
  const rate = new DuplicateRate(settings.probeDuplicates ?? 'auto');
  return {
    name: 'transaction',
    async begin(batch) {
      const admissions = await batch.admission.batch(batch.records, { ...batch.admit, claim: false });
      return new TransactionBatch(settings, batch.admit.consumer, admissions, rate);
    },
  };
}
