/**
 * The per-invocation runner behind a batch middleware + `eachRecord`: runs each
 * owned record under the strategy and remembers how it went, for the after
 * phase to settle. Later copies of a key ride in their first copy's lane and
 * are decided there from its outcome, so that one that comes back stops its
 * FIFO group before the records behind it run.
 */
import type { Context } from 'aws-lambda';
import { acknowledged, type RecordOutcome } from '../engine/outcomes.js';
import { claimRecord, releasedUnrun, type Admission } from './admit.js';
import { mergedLanes } from './cross-group.js';
import type { IdempotencyStore } from '../stores/types.js';
import type { TransactionBuilder } from '../transaction/builder.js';
import { remainingTime } from '../engine/time.js';
import type { BatchRunner, NotStartedReason, RecordHandler } from './runner-link.js';
import { disabledTransaction } from './disabled-tx.js';
import type { BatchFeatures, TransactionalRecord } from './features.js';
import { withSignal, type HeartbeatPlan, type LeaseKeeper } from '../engine/heartbeat.js';
import { followerOutcome, type LeaderRef } from './same-key.js';
import { releaseClaim, settleClaim, type Execution, type OwnedRecord } from '../engine/settle.js';
import { idOf, type BatchSource } from '../sources/source.js';
import type { ConflictPolicy } from '../transaction/commit-step.js';
import type { CommitMode } from '../transaction/group-commit/queue.js';
import type { DuplicateRate } from '../transaction/group-commit/duplicate-probe.js';

/** Settings the runner needs from the middleware. */
export interface BatchRunConfig {
  readonly store: IdempotencyStore;
  readonly consumer: string;
  readonly transactional: boolean;
  readonly storeResult: boolean;
  readonly onConflict: ConflictPolicy;
  readonly safetyMarginMs: number;
  /** `lease: { heartbeat }` (claim strategy): renew each owned claim until its record settles or the run closes. */
  readonly heartbeat?: HeartbeatPlan | undefined;
  /** Transaction strategy: group commit (default) or one commit per record. */
  readonly commit?: CommitMode;
  /** The optional parts the entry handed in (the transaction strategy, the heartbeat). */
  readonly features: BatchFeatures;
  /** Group commit: the container's duplicate rate, which decides the duplicate probe. Absent: no probe. */
  readonly duplicates?: DuplicateRate | undefined;
  /** The claims' lease: a FIFO copy taking over a claim released unrun claims afresh (cross-group.ts). */
  readonly leaseMs: number;
  /** Outcomes found before the handler, by message id: a later copy's first copy may be among them. */
  readonly found?: ReadonlyMap<string, RecordOutcome>;
}

/** A record the runner was given: owned, or a later copy of a key (with its first copy). */
export interface RunRecord<TRecord> {
  readonly record: TRecord;
  readonly owned: OwnedRecord;
  readonly leader?: LeaderRef;
  /** FIFO: held back before the handler by a returned record of its own group. */
  readonly heldBack?: true;
}

const claimTxs = new Map<string, ReturnType<typeof disabledTransaction>>();
const claimTx = (owner: string) => {
  const tx = claimTxs.get(owner) ?? disabledTransaction(`the strategy is "claim"; use ${owner}({ strategy: "transaction" }).`);
  claimTxs.set(owner, tx);
  return tx;
};

/** The transaction part; the entry refuses strategy "transaction" when it has none, so a gap here is a wiring bug. */
function transactionPart(config: BatchRunConfig): NonNullable<BatchFeatures['transaction']> {
  const part = config.features.transaction;
  if (part === undefined)
    throw new TypeError('strategy "transaction" is not available from this entry point; import from \'effectively-once\'.');
  return part;
}

/** A runner over the owned records; `executions` is read by the after phase. */
export class BatchRun<TRecord> implements BatchRunner<TRecord> {
  readonly source: BatchSource<unknown, TRecord, unknown>;
  /** Owned records and later copies, in delivery order: what `eachRecord` lays out in lanes. */
  readonly records: readonly TRecord[];
  /** The records handed to the handler: the leaders, or none when claims are pipelined (none is claimed yet). */
  readonly ownedRecords: readonly TRecord[];
  /** The first copy of each key: the records this run claims and settles. */
  readonly leaderRecords: readonly TRecord[];
  readonly safetyMarginMs: number;
  /** How each record went, by message id. Absent: the handler never ran it through `eachRecord` (or skipped it). */
  readonly executions = new Map<string, Execution>();
  readonly #owned: Map<string, OwnedRecord>;
  /** Pipelined claims: each leader's claim, still running when the handler starts. */
  readonly #pending: ReadonlyMap<string, Promise<Admission<TRecord>>>;
  /** Each later copy's first copy; a copy that takes its key over becomes the first copy of those after it. */
  readonly #leaders: Map<string, LeaderRef>;
  /** FIFO groups sharing a key with another group: their merged lane (cross-group.ts). */
  readonly #merged: ReadonlyMap<string, string>;
  /** Merged lanes: the groups stopped at a returned record, and the copies held back before the handler. */
  readonly #stopped = new Set<string>();
  readonly #heldBack: ReadonlySet<string>;
  readonly #config: BatchRunConfig;
  /** Transaction strategy: runs one record's handler and commit (with the batch's group-commit queue). */
  readonly #transactional: ((record: TransactionalRecord) => Promise<RecordOutcome>) | undefined;
  readonly #running = new Set<string>();
  /** Heartbeats by message id, started with the run: a record waiting in its lane must keep its claim too. */
  readonly #keepers = new Map<string, LeaseKeeper>();
  #closed = false;
  #begun = false;

  constructor(
    source: BatchSource<unknown, TRecord, unknown>,
    given: readonly RunRecord<TRecord>[],
    config: BatchRunConfig,
    pending: ReadonlyMap<string, Promise<Admission<TRecord>>> = new Map(),
  ) {
    this.source = source;
    this.records = given.map((o) => o.record);
    const leaders = given.filter((o) => o.leader === undefined);
    this.leaderRecords = leaders.map((o) => o.record);
    this.ownedRecords = pending.size > 0 ? [] : this.leaderRecords;
    this.#pending = pending;
    this.#owned = new Map(given.map((o) => [o.owned.messageId, o.owned]));
    this.#leaders = new Map(given.flatMap((o) => (o.leader === undefined ? [] : [[o.owned.messageId, o.leader] as const])));
    this.#merged = mergedLanes(given.map((o) => ({ lane: source.lane(o.record), leader: o.leader })));
    this.#heldBack = new Set(given.flatMap((o) => (o.heldBack === true ? [o.owned.messageId] : [])));
    this.#config = config;
    // The duplicate probe (group commit) is sent now, while the handlers build their writes.
    this.#transactional = config.transactional
      ? transactionPart(config).batch(config.store, config.commit ?? 'group', {
          rate: config.duplicates,
          ids: leaders.map((o) => o.owned.id),
        })
      : undefined;
    this.safetyMarginMs = config.safetyMarginMs;
    const plan = config.heartbeat;
    const heartbeat = config.features.heartbeat;
    if (plan === undefined || heartbeat === undefined) return;
    for (const { owned, leader } of given) if (leader === undefined) this.#keep(owned);
  }

  #keep(owned: OwnedRecord): void {
    const plan = this.#config.heartbeat;
    const heartbeat = this.#config.features.heartbeat;
    if (plan === undefined || heartbeat === undefined || owned.token === undefined) return;
    this.#keepers.set(owned.messageId, heartbeat.keep(plan, { id: owned.id, token: owned.token, key: owned.key }));
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
   * this. Resolves with the records still running: after a timeout their handlers
   * may still finish, so their claims must be left to their lease, not released.
   * It waits for renewals in flight, so none lands after the claims are settled
   * or the response is given (it would extend a lease left to run out).
   */
  async close(): Promise<ReadonlySet<string>> {
    this.#closed = true;
    const running = new Set(this.#running);
    // The invocation ends: a record still running keeps its claim only until its lease passes.
    await Promise.all([...this.#keepers.values()].map((keeper) => keeper.stop()));
    return running;
  }

  /**
   * The source's lane (FIFO message group). Without one: one lane per key,
   * so a later copy is reached only after its first copy has finished.
   */
  laneOf(record: TRecord): string | undefined {
    const owned = this.#owned.get(idOf(this.source, record));
    const lane = this.source.lane(record);
    if (lane !== undefined) return this.#merged.get(lane) ?? lane;
    return owned === undefined ? undefined : `\u0000${owned.id}`;
  }

  async execute(record: TRecord, fn: RecordHandler<unknown, TRecord>, context: Context): Promise<boolean> {
    const group = this.source.lane(record);
    if (group === undefined || !this.#merged.has(group)) return this.#executeOne(record, fn, context);
    // A merged lane goes on past a returned record: only that record's own group stops.
    const id = idOf(this.source, record);
    if (this.#stopped.has(group) || this.#heldBack.has(id)) {
      this.#stopped.add(group);
      if (!this.executions.has(id) && !this.#running.has(id)) await this.#holdBack(record, id);
      return true;
    }
    if (!(await this.#executeOne(record, fn, context))) this.#stopped.add(group);
    return true;
  }

  /** A merged lane's record behind a returned record of its group: a first copy's claim is released now, for another group's copy. */
  async #holdBack(record: TRecord, id: string): Promise<void> {
    const owned = this.#owned.get(id);
    if (owned === undefined || this.#leaders.has(id)) return this.skip(record, 'group-failed');
    await this.#keepers.get(id)?.stop();
    await releaseClaim(this.#config.store, owned);
    this.executions.set(id, { kind: 'settled', outcome: { kind: 'not-started', messageId: id, key: owned.key, reason: 'group-failed' } });
  }

  async #executeOne(record: TRecord, fn: RecordHandler<unknown, TRecord>, context: Context): Promise<boolean> {
    const id = idOf(this.source, record);
    const owned = this.#owned.get(id);
    if (owned === undefined || this.#closed) return false;
    // Run at most once per invocation (a handler may call eachRecord twice): the first execution stands.
    const earlier = this.executions.get(id);
    if (earlier !== undefined || this.#running.has(id)) return earlier?.kind === 'settled' && acknowledged(earlier.outcome);
    const leader = this.#leaders.get(id);
    if (leader !== undefined && releasedUnrun(this.#outcomeOf(leader.messageId)) && this.source.lane(record) !== leader.lane) {
      return this.#takeOver(record, owned, fn, context);
    }
    if (leader !== undefined) return this.#follow(owned, leader);
    this.#running.add(id);
    try {
      const admitted = await this.#admitted(id, owned);
      if ('kind' in admitted) {
        this.executions.set(id, { kind: 'settled', outcome: admitted });
        return acknowledged(admitted);
      }
      // The batch was answered while this record waited for its claim: it never started.
      if (this.#closed) return false;
      return await this.#execute(record, admitted, fn, context);
    } finally {
      this.#running.delete(id);
    }
  }

  /** Pipelined claims: this record's claim, once it returns; a record found done, in progress or failed is settled by it. */
  async #admitted(id: string, owned: OwnedRecord): Promise<OwnedRecord | RecordOutcome> {
    const pending = this.#pending.get(id);
    if (pending === undefined) return owned;
    const admission = await pending;
    if (admission.kind === 'settled') return admission.outcome;
    this.#owned.set(id, admission.owned);
    return admission.owned;
  }

  /**
   * Pipelined claims, once every claim has returned: records the claims'
   * tokens (so unstarted records are released) and the outcomes of records
   * found done or in progress that the handler never reached.
   */
  admit(admissions: readonly Admission<TRecord>[]): void {
    for (const a of admissions) {
      if (a.kind === 'owned') this.#owned.set(a.owned.messageId, a.owned);
      if (a.kind !== 'settled') continue;
      const id = a.outcome.messageId;
      if (this.#owned.has(id) && !this.executions.has(id)) this.executions.set(id, { kind: 'settled', outcome: a.outcome });
    }
  }

  async #execute(record: TRecord, owned: OwnedRecord, fn: RecordHandler<unknown, TRecord>, context: Context): Promise<boolean> {
    const base = { key: owned.key, messageId: owned.messageId, context, attempt: this.source.attempt(record) };
    if (this.#transactional !== undefined) {
      const { consumer, storeResult, onConflict } = this.#config;
      const outcome = await this.#transactional({
        owned,
        consumer,
        storeResult,
        onConflict,
        // A commit cancelled by contention is tried again, but never into the safety margin.
        timeLeftMs: () => remainingTime(context) - this.safetyMarginMs,
        handler: async (tx: TransactionBuilder) => fn(record, withSignal({ ...base, tx })),
      });
      this.executions.set(owned.messageId, { kind: 'settled', outcome });
      return acknowledged(outcome);
    }
    const keeper = this.#keepers.get(owned.messageId);
    const outcome = await this.#runClaimed(
      record,
      owned,
      fn,
      withSignal({ ...base, tx: claimTx(this.source.owner) }, keeper?.signal),
      keeper,
    );
    this.executions.set(owned.messageId, { kind: 'settled', outcome });
    return acknowledged(outcome);
  }

  /**
   * Runs a claimed record and settles it at once rather than after the whole
   * batch: a crash later in the batch then cannot make this record's effect
   * run again, and the next record of a FIFO group starts only once this one
   * is recorded. The heartbeat stops before the claim is completed or released.
   */
  async #runClaimed(
    record: TRecord,
    owned: OwnedRecord,
    fn: RecordHandler<unknown, TRecord>,
    ctx: Parameters<RecordHandler<unknown, TRecord>>[1],
    keeper: LeaseKeeper | undefined,
  ): Promise<RecordOutcome> {
    const { store, storeResult } = this.#config;
    const base = { messageId: owned.messageId, key: owned.key };
    // Lost while it waited in its lane: never start it.
    if (keeper?.lost !== undefined) {
      await releaseClaim(store, owned);
      return { ...base, kind: 'lease-lost', error: keeper.lost };
    }
    let execution: Execution;
    try {
      execution = { kind: 'succeeded', result: await fn(record, ctx) };
    } catch (error) {
      execution = { kind: 'threw', error };
    }
    await keeper?.stop();
    // The handler gave up on the abort: the claim is (most likely) someone else's; the fenced release can change nothing of theirs.
    if (execution.kind === 'threw' && keeper?.lost !== undefined) {
      await releaseClaim(store, owned, execution.error);
      return { ...base, kind: 'lease-lost', error: keeper.lost };
    }
    return settleClaim(store, owned, execution, storeResult);
  }

  /** A record's final outcome as far as this run knows it: settled in the run, or found before the handler. */
  #outcomeOf(messageId: string): RecordOutcome | undefined {
    const execution = this.executions.get(messageId);
    return execution?.kind === 'settled' ? execution.outcome : this.#config.found?.get(messageId);
  }

  /**
   * A FIFO copy in another group than its key's first copy, which was held
   * back unrun: it claims the key afresh (with its own payload) and runs, and
   * the copies not yet decided follow it instead (cross-group.ts).
   */
  async #takeOver(record: TRecord, owned: OwnedRecord, fn: RecordHandler<unknown, TRecord>, context: Context): Promise<boolean> {
    const id = owned.messageId;
    // It stays among the later copies (its outcome is reported as theirs are); those after it follow it now.
    const released = this.#leaders.get(id)?.messageId;
    const ref: LeaderRef = { messageId: id, payloadHash: owned.payloadHash, lane: this.source.lane(record) };
    for (const [other, leader] of this.#leaders) {
      if (other !== id && leader.messageId === released && this.#outcomeOf(other) === undefined) this.#leaders.set(other, ref);
    }
    this.#running.add(id);
    try {
      const { store, consumer, leaseMs } = this.#config;
      const answer = await claimRecord(owned, { store, consumer, leaseMs });
      if (answer.kind === 'settled' || this.#closed) {
        if (answer.kind === 'owned') await releaseClaim(store, answer.owned);
        const outcome: RecordOutcome =
          answer.kind === 'settled' ? answer.outcome : { kind: 'not-started', messageId: id, key: owned.key, reason: 'deadline' };
        this.executions.set(id, { kind: 'settled', outcome });
        return acknowledged(outcome);
      }
      this.#owned.set(id, answer.owned);
      this.#keep(answer.owned);
      return await this.#execute(record, answer.owned, fn, context);
    } finally {
      this.#running.delete(id);
    }
  }

  /** A later copy, reached in its lane: decided from its first copy's outcome, which is final by then. */
  #follow(owned: OwnedRecord, leader: LeaderRef): boolean {
    const first = this.#outcomeOf(leader.messageId);
    if (first === undefined) return false; // not reachable in a lane; the after phase decides it
    const outcome = followerOutcome(owned, first, leader.payloadHash);
    this.executions.set(owned.messageId, { kind: 'settled', outcome });
    return acknowledged(outcome);
  }

  /**
   * Final outcomes of the later copies, given every first copy's final
   * outcome: decided in the lane when it reached them, else now (skipped
   * behind a failure, past the deadline, or run without `eachRecord`).
   */
  followerOutcomes(settled: ReadonlyMap<string, RecordOutcome>): RecordOutcome[] {
    return [...this.#leaders].flatMap(([messageId, leader]) => {
      const execution = this.executions.get(messageId);
      if (execution?.kind === 'settled') return [execution.outcome];
      const first = this.#outcomeOf(leader.messageId) ?? settled.get(leader.messageId);
      return first === undefined ? [] : [followerOutcome(this.ownedRecord(messageId), first, leader.payloadHash)];
    });
  }

  /** The owned record for a message id of this run. */
  ownedRecord(messageId: string): OwnedRecord {
    const owned = this.#owned.get(messageId);
    if (owned === undefined) throw new Error(`No owned record for message ${messageId}.`);
    return owned;
  }

  skip(record: TRecord, reason: NotStartedReason): void {
    this.executions.set(idOf(this.source, record), { kind: 'not-started', reason });
  }

  failures(): string[] {
    return this.records
      .map((r) => idOf(this.source, r))
      .filter((id) => {
        const e = this.executions.get(id);
        return e === undefined || e.kind === 'threw' || e.kind === 'not-started' || (e.kind === 'settled' && !acknowledged(e.outcome));
      });
  }
}
