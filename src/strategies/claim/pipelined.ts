/**
 * The claim strategy with pipelined claims (`claim({ pipelined: true })`, see its TSDoc): the claims are started, not awaited, and each record runs as soon as its own claim returns, every
 * claim and completion a request of its own. FIFO batches are claimed as a batch (a group's hold-back is decided from
 * all its claims), one request per claim.
 */
import type { RecordOutcome } from '../../engine/outcomes.js';
import type { Execution, OwnedRecord } from '../../engine/settle.js';
import { idOf } from '../../engine/source.js';
import { ClaimBatch, claimBatchStrategy, type ClaimSettings } from './steps.js';
import type { AdmittedRecord, Admitter, AdmissionSettings, BatchStrategy, HandlerAnswer, StepSettings, StrategySteps } from '../types.js';

/** One invocation's batch with its claims still running: each first copy's claim, by message id. */
class PipelinedBatch<TRecord> extends ClaimBatch<TRecord> {
  override readonly handsOwned = false;
  readonly #pending: ReadonlyMap<string, Promise<AdmittedRecord<TRecord>>>;
  readonly #all: Promise<AdmittedRecord<TRecord>[]>;

  constructor(
    settings: ClaimSettings,
    admit: AdmissionSettings<TRecord>,
    admission: Admitter,
    known: readonly AdmittedRecord<TRecord>[],
    pending: ReadonlyMap<string, Promise<AdmittedRecord<TRecord>>>,
    all: Promise<AdmittedRecord<TRecord>[]>,
  ) {
    super(settings, admit, admission, known);
    this.#pending = pending;
    this.#all = all;
  }

  /** This record's claim, once it returns; a record found done, in progress or failed is settled by it. */
  async admitted(owned: OwnedRecord): Promise<OwnedRecord | RecordOutcome> {
    const pending = this.#pending.get(owned.messageId);
    if (pending === undefined) return owned;
    const admission = await pending;
    return admission.kind === 'settled' ? admission.outcome : admission.owned;
  }

  /**
   * The handler never called `eachRecord`: it was handed no records, so
   * nothing ran. Every record comes back, claims released, found-done ones
   * included (nothing is acknowledged unseen).
   */
  override answeredByHandler({ source, owner, leaders, owned }: HandlerAnswer<TRecord>): Map<string, Execution> {
    const error = new TypeError(
      `${owner}: claim({ pipelined: true }) needs the handler wrapped in eachRecord(); it was handed no records.`,
    );
    const executions = new Map<string, Execution>();
    for (const record of leaders) {
      const o = owned(idOf(source, record));
      const failed = { kind: 'failed', messageId: o.messageId, key: o.key, error, aboutTheBatch: true } as const;
      executions.set(
        o.messageId,
        o.token === undefined ? { kind: 'settled', outcome: failed } : { kind: 'threw', error, aboutTheBatch: true },
      );
    }
    return executions;
  }

  /** Waits for every claim, so that tokens are known and outcomes found before the handler count (no heartbeat to stop: pipelined claims have none). */
  finish(): Promise<readonly AdmittedRecord<TRecord>[]> {
    return this.#all;
  }
}

/** Pipelined claims. A batch with lanes (FIFO) is claimed as a batch, by the claim strategy's own steps. */
export function pipelinedStrategy(settings: ClaimSettings): BatchStrategy {
  // Every request on its own, FIFO batches too: the point of pipelining is each record's own chain of round trips.
  const asBatch = claimBatchStrategy(settings, 'per-record');
  return {
    name: 'claim',
    async begin(batch) {
      const { records, admit: config } = batch;
      if (!records.every((r) => config.source.read(r).lane === undefined)) return asBatch.begin(batch);
      const admit = { ...config, claim: true };
      const started = batch.admission.start(records, admit);
      const known: AdmittedRecord<(typeof records)[number]>[] = [];
      const pending = new Map<string, Promise<AdmittedRecord<(typeof records)[number]>>>();
      for (const { record, owned, leader, admission } of started) {
        // Invalid: known at once (its admission is already settled).
        if (owned === undefined) known.push(await admission);
        else if (leader !== undefined) known.push({ kind: 'follower', record, owned, leader });
        else {
          known.push({ kind: 'owned', record, owned });
          pending.set(owned.messageId, admission);
        }
      }
      return new PipelinedBatch(settings, admit, batch.admission, known, pending, Promise.all(started.map((s) => s.admission)));
    },
  };
}

/** The steps of `claim({ pipelined: true })`: on the prototype of what it returns. */
export const pipelinedSteps: StrategySteps = {
  check({ owner, pipelined }) {
    if (!pipelined) throw new TypeError(`${owner}: option "strategy" is claim({ pipelined: true }), which only sqsIdempotency takes.`);
  },
  batch(settings: StepSettings): BatchStrategy {
    return pipelinedStrategy({ ...settings, heartbeat: false });
  },
  // Never reached: check() refuses pipelined claims wherever there is no batch.
  event: () => ({ name: 'claim' }),
};
