/**
 * The per-invocation runner behind `sqsIdempotency` + `eachRecord`: runs each
 * owned record under the strategy and remembers how it went, for the after
 * phase to settle.
 */
import type { Context, SQSBatchItemFailure, SQSRecord } from 'aws-lambda';
import { acknowledged } from '../core/outcomes.js';
import type { IdempotencyStore } from '../store/types.js';
import { attemptOf, type BatchRunner, type NotStartedReason, type RecordHandler } from './batch-runner.js';
import { disabledTransaction } from './disabled-tx.js';
import { settleClaim, type Execution, type OwnedRecord } from './sqs-settle.js';
import { asTransactional, runTransactional, type ConflictPolicy } from './strategy.js';

/** Settings the runner needs from the middleware. */
export interface SqsRunConfig {
  readonly store: IdempotencyStore;
  readonly consumer: string;
  readonly transactional: boolean;
  readonly storeResult: boolean;
  readonly onConflict: ConflictPolicy;
  readonly safetyMarginMs: number;
}

const claimTx = disabledTransaction('the strategy is "claim"; use sqsIdempotency({ strategy: "transaction" }).');

/** A runner over the owned records; `executions` is read by the after phase. */
export class SqsRun implements BatchRunner {
  readonly records: readonly SQSRecord[];
  readonly safetyMarginMs: number;
  /** How each owned record went, by message id. Absent: the handler never ran it through `eachRecord`. */
  readonly executions = new Map<string, Execution>();
  readonly #owned: ReadonlyMap<string, OwnedRecord>;
  readonly #config: SqsRunConfig;
  readonly #running = new Set<string>();
  #closed = false;
  #begun = false;

  constructor(owned: ReadonlyArray<{ record: SQSRecord; owned: OwnedRecord }>, config: SqsRunConfig) {
    this.records = owned.map((o) => o.record);
    this.#owned = new Map(owned.map((o) => [o.record.messageId, o.owned]));
    this.#config = config;
    this.safetyMarginMs = config.safetyMarginMs;
  }

  begin(): void {
    this.#begun = true;
  }

  /** Whether `eachRecord` ran this batch (else the handler's own response decides). */
  get begun(): boolean {
    return this.#begun;
  }

  /**
   * Ends the run (the batch response is being built): no record starts after
   * this. Returns the records still running: after a timeout their handlers
   * may still finish, so their claims must be left to their lease, not released.
   */
  close(): ReadonlySet<string> {
    this.#closed = true;
    return new Set(this.#running);
  }

  async execute(record: SQSRecord, fn: RecordHandler, context: Context): Promise<boolean> {
    const owned = this.#owned.get(record.messageId);
    if (owned === undefined || this.#closed) return false;
    this.#running.add(record.messageId);
    try {
      return await this.#execute(record, owned, fn, context);
    } finally {
      this.#running.delete(record.messageId);
    }
  }

  async #execute(record: SQSRecord, owned: OwnedRecord, fn: RecordHandler, context: Context): Promise<boolean> {
    const ctx = { key: owned.key, messageId: owned.messageId, context, attempt: attemptOf(record) };
    if (this.#config.transactional) {
      const { store, consumer, storeResult, onConflict } = this.#config;
      const delivery = { ...owned, consumer };
      const outcome = await runTransactional(asTransactional(store), delivery, { storeResult, onConflict }, async (tx) =>
        fn(record, { ...ctx, tx }),
      );
      this.executions.set(record.messageId, { kind: 'settled', outcome });
      return acknowledged(outcome);
    }
    let execution: Execution;
    try {
      execution = { kind: 'succeeded', result: await fn(record, { ...ctx, tx: claimTx }) };
    } catch (error) {
      execution = { kind: 'threw', error };
    }
    // Settle at once rather than after the whole batch: a crash later in the
    // batch then cannot make this record's effect run again, and the next
    // record of a FIFO group starts only once this one is recorded.
    const { store, storeResult } = this.#config;
    const outcome = await settleClaim(store, owned, execution, storeResult);
    this.executions.set(record.messageId, { kind: 'settled', outcome });
    return acknowledged(outcome);
  }

  /** The owned record for a message id of this run. */
  ownedRecord(messageId: string): OwnedRecord {
    const owned = this.#owned.get(messageId);
    if (owned === undefined) throw new Error(`No owned record for message ${messageId}.`);
    return owned;
  }

  skip(record: SQSRecord, reason: NotStartedReason): void {
    this.executions.set(record.messageId, { kind: 'not-started', reason });
  }

  failures(): SQSBatchItemFailure[] {
    return this.records
      .filter((r) => {
        const e = this.executions.get(r.messageId);
        return e === undefined || e.kind === 'threw' || e.kind === 'not-started' || (e.kind === 'settled' && !acknowledged(e.outcome));
      })
      .map((r) => ({ itemIdentifier: r.messageId }));
  }
}
