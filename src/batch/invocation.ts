/**
 * One invocation of a batch middleware: all its state, in one object, kept under `request.internal` between before and
 * after and found by `eachRecord` through the event and the context it was handed (runner-link.ts). Nothing of it is
 * shared with another invocation, even of the same handler in the same process (Lambda Managed Instances).
 *
 * It runs each owned record through the strategy's steps and remembers how it went. Later copies of a key ride in their
 * first copy's lane and are decided there from its outcome, so that one that comes back stops its FIFO group before the
 * records behind it run. What the strategies share lives here; what differs, behind their steps (strategies/types.ts).
 */
import { acknowledged, type RecordOutcome } from '../engine/outcomes.js';
import { settleClaim, type Execution, type NotStartedReason, type OwnedRecord } from '../engine/settle.js';
import { withSignal } from '../engine/heartbeat.js';
import { remainingTime } from '../engine/time.js';
import type { IdempotencyStore } from '../engine/store.js';
import type { EffectWrap, InvocationTrace } from '../engine/tracing.js';
import { idOf, type BatchSource } from '../engine/source.js';
import { releasedUnrun } from './admit.js';
import { mergedLanes } from './cross-group.js';
import { recordContext, type BatchRunner, type HandlerCall, type RecordHandler } from './runner-link.js';
import { followerOutcome } from './same-key.js';
import type { AdmittedRecord, LeaderRef } from '../strategies/types.js';
import type { AdmittedBatch } from '../strategies/types.js';

/** What the invocation knows of its Lambda invocation. */
export interface InvocationSettings {
  /** The middleware's name, for errors. */
  readonly owner: string;
  readonly consumer: string;
  readonly startedAt: number;
  /** A record is not started when the remaining time is under this. */
  readonly safetyMarginMs: number;
  /** The invocation's time left, read when the batch is answered (the log line warns near the deadline). */
  readonly timeLeft: () => number;
  /** Its trace (the `tracing` option); absent: no tracing. */
  readonly trace?: InvocationTrace | undefined;
}

/** Where the invocation stands: admitted (before the handler), running (`eachRecord` took the batch), or closed (being answered). */
type Phase = 'admitted' | 'running' | 'closed';

/** A batch middleware's invocation; `eachRecord` runs it as its {@link BatchRunner}. */
export class BatchInvocation<TRecord> implements BatchRunner<TRecord> {
  readonly source: BatchSource<unknown, TRecord, unknown>;
  readonly owner: string;
  readonly settings: InvocationSettings;
  readonly safetyMarginMs: number;
  /** The batch's records, each id once, in delivery order: every one gets exactly one final outcome. */
  readonly original: readonly TRecord[];
  /** Owned records and later copies, in delivery order: what `eachRecord` lays out in lanes. */
  readonly records: readonly TRecord[];
  /** The records handed to the handler: the first copies, or none when claims are pipelined. */
  readonly ownedRecords: readonly TRecord[];
  /** The first copy of each key: the records this invocation settles. */
  readonly leaderRecords: readonly TRecord[];
  /** Outcomes final before the handler (found done, in progress, invalid, held back), by record id. */
  readonly found = new Map<string, RecordOutcome>();
  /** Idempotency record ids by record id, for the log line. */
  readonly ids = new Map<string, string>();
  /** How each record went, by record id. Absent: the handler never ran it through `eachRecord` (or skipped it). */
  readonly executions = new Map<string, Execution>();
  readonly #batch: AdmittedBatch<TRecord>;
  readonly #owned = new Map<string, OwnedRecord>();
  /** Each later copy's first copy; a copy that takes its key over becomes the first copy of those after it. */
  readonly #leaders = new Map<string, LeaderRef>();
  /** FIFO groups sharing a key with another group: their merged lane (cross-group.ts). */
  readonly #merged: ReadonlyMap<string, string>;
  /** Merged lanes: the groups stopped at a returned record, and the copies held back before the handler. */
  readonly #stopped = new Set<string>();
  readonly #heldBack = new Set<string>();
  readonly #running = new Set<string>();
  #phase: Phase = 'admitted';
  /** Takes the invocation away from where `eachRecord` finds it (runner-link.ts). */
  #detach: () => void = () => {};

  constructor(
    source: BatchSource<unknown, TRecord, unknown>,
    original: readonly TRecord[],
    batch: AdmittedBatch<TRecord>,
    settings: InvocationSettings,
  ) {
    this.source = source;
    this.original = original;
    this.#batch = batch;
    this.settings = settings;
    this.owner = settings.owner;
    this.safetyMarginMs = settings.safetyMarginMs;
    const records: TRecord[] = [];
    const leaders: TRecord[] = [];
    const lanes: { lane: string | undefined; leader?: LeaderRef }[] = [];
    for (const a of batch.admissions) {
      if (a.kind === 'settled') {
        this.found.set(a.outcome.messageId, a.outcome);
        if (a.id !== undefined) this.ids.set(a.outcome.messageId, a.id);
        continue;
      }
      const { owned, record } = a;
      this.ids.set(owned.messageId, owned.id);
      this.#owned.set(owned.messageId, owned);
      records.push(record);
      if (a.kind === 'owned') leaders.push(record);
      else {
        this.#leaders.set(owned.messageId, a.leader);
        if (a.heldBack === true) this.#heldBack.add(owned.messageId);
      }
      lanes.push({ lane: source.read(record).lane, ...(a.kind === 'follower' ? { leader: a.leader } : {}) });
    }
    this.records = records;
    this.leaderRecords = leaders;
    this.ownedRecords = batch.handsOwned ? leaders : [];
    this.#merged = mergedLanes(lanes);
  }

  /** How the strategy sends this batch's requests (claim strategy), for the log line. */
  get requests(): AdmittedBatch<TRecord>['requests'] {
    return this.#batch.requests;
  }

  /** The invocation was left where `eachRecord` finds it; `detach` takes it away. */
  linked(detach: () => void): void {
    this.#detach = detach;
  }

  /** The batch is being answered: `eachRecord` must not find this invocation any more (a later one may share the context). */
  unlink(): void {
    this.#detach();
    this.#detach = () => {};
  }

  /** `eachRecord` takes the batch: from now on a record without an execution was cut short, never answered for by the handler. */
  begin(): void {
    if (this.#phase === 'admitted') this.#phase = 'running';
  }

  /**
   * Ends the run (the batch response is being built): no record starts after
   * this. Resolves with the records still running: after a timeout their
   * handlers may still finish, so their claims must be left to their lease,
   * not released. The strategy's admissions that returned meanwhile
   * (pipelined claims) are taken in.
   */
  async close(): Promise<{ readonly running: ReadonlySet<string>; readonly ranEachRecord: boolean }> {
    const ranEachRecord = this.#phase === 'running';
    this.#phase = 'closed';
    const running = new Set(this.#running);
    this.#admit((await this.#batch.finish?.()) ?? []);
    return { running, ranEachRecord };
  }

  /**
   * Admissions that returned while the handler ran (pipelined claims), once
   * every claim has: the claims' tokens (so unstarted records are released)
   * and the outcomes of records found done or in progress that the handler
   * never reached.
   */
  #admit(admissions: readonly AdmittedRecord<TRecord>[]): void {
    for (const a of admissions) {
      if (a.kind === 'owned') this.#owned.set(a.owned.messageId, a.owned);
      if (a.kind !== 'settled') continue;
      const id = a.outcome.messageId;
      if (!this.#owned.has(id)) this.found.set(id, a.outcome);
      else if (!this.executions.has(id)) this.executions.set(id, { kind: 'settled', outcome: a.outcome });
    }
  }

  /**
   * The source's lane (FIFO message group). Without one: one lane per key,
   * so a later copy is reached only after its first copy has finished.
   */
  laneOf(record: TRecord): string | undefined {
    const owned = this.#owned.get(idOf(this.source, record));
    const lane = this.source.read(record).lane;
    if (lane !== undefined) return this.#merged.get(lane) ?? lane;
    return owned === undefined ? undefined : `\u0000${owned.id}`;
  }

  async execute(record: TRecord, fn: RecordHandler<unknown, TRecord>, call: HandlerCall): Promise<boolean> {
    const group = this.source.read(record).lane;
    if (group === undefined || !this.#merged.has(group)) return this.#executeOne(record, fn, call);
    // A merged lane goes on past a returned record: only that record's own group stops.
    const id = idOf(this.source, record);
    if (this.#stopped.has(group) || this.#heldBack.has(id)) {
      this.#stopped.add(group);
      if (!this.executions.has(id) && !this.#running.has(id)) await this.#holdBack(record, id);
      return true;
    }
    if (!(await this.#executeOne(record, fn, call))) this.#stopped.add(group);
    return true;
  }

  /** A merged lane's record behind a returned record of its group: a first copy's claim is released now, for another group's copy. */
  async #holdBack(record: TRecord, id: string): Promise<void> {
    const owned = this.#owned.get(id);
    if (owned === undefined || this.#leaders.has(id)) return this.skip(record, 'group-failed');
    await this.#batch.release?.(owned);
    this.executions.set(id, { kind: 'settled', outcome: { kind: 'not-started', messageId: id, key: owned.key, reason: 'group-failed' } });
  }

  async #executeOne(record: TRecord, fn: RecordHandler<unknown, TRecord>, call: HandlerCall): Promise<boolean> {
    const id = idOf(this.source, record);
    const owned = this.#owned.get(id);
    if (owned === undefined || this.#closed()) return false;
    // Run at most once per invocation (a handler may call eachRecord twice): the first execution stands.
    const earlier = this.executions.get(id);
    if (earlier !== undefined || this.#running.has(id)) return earlier?.kind === 'settled' && acknowledged(earlier.outcome);
    const leader = this.#leaders.get(id);
    if (leader !== undefined && releasedUnrun(this.#outcomeOf(leader.messageId)) && this.source.read(record).lane !== leader.lane) {
      return this.#takeOver(record, owned, fn, call);
    }
    if (leader !== undefined) return this.#follow(owned, leader);
    this.#running.add(id);
    try {
      const admitted = (await this.#batch.admitted?.(owned)) ?? owned;
      if ('kind' in admitted) return this.#settled(id, admitted);
      this.#owned.set(id, admitted);
      // The batch was answered while this record waited for its claim: it never started.
      if (this.#closed()) return false;
      return await this.#run(record, admitted, fn, call);
    } finally {
      this.#running.delete(id);
    }
  }

  #closed(): boolean {
    return this.#phase === 'closed';
  }

  #settled(id: string, outcome: RecordOutcome): boolean {
    this.executions.set(id, { kind: 'settled', outcome });
    return acknowledged(outcome);
  }

  /** Runs one owned record under the strategy; it is settled as soon as it finishes. */
  async #run(record: TRecord, owned: OwnedRecord, fn: RecordHandler<unknown, TRecord>, call: HandlerCall): Promise<boolean> {
    const { context } = call;
    const base = { key: owned.key, messageId: owned.messageId, context, attempt: this.source.read(record).attempt };
    const run = (wrap: EffectWrap) =>
      this.#batch.run(
        owned,
        // Aborts when the heartbeat finds the claim lost, or Middy answers at its early timeout.
        async (tx, signal) => wrap(async () => fn(record, withSignal(recordContext(base, tx, call, this.owner), signal, call.signal))),
        () => remainingTime(context) - this.safetyMarginMs,
      );
    const { trace } = this.settings;
    const outcome = await (trace === undefined ? run((effect) => effect()) : trace.run(owned, run));
    return this.#settled(owned.messageId, outcome);
  }

  /** A record's final outcome as far as this invocation knows it: settled in the run, or found before the handler. */
  #outcomeOf(messageId: string): RecordOutcome | undefined {
    const execution = this.executions.get(messageId);
    return execution?.kind === 'settled' ? execution.outcome : this.found.get(messageId);
  }

  /**
   * A FIFO copy in another group than its key's first copy, which was held
   * back unrun: it claims the key afresh (with its own payload) and runs, and
   * the copies not yet decided follow it instead (cross-group.ts).
   */
  async #takeOver(record: TRecord, owned: OwnedRecord, fn: RecordHandler<unknown, TRecord>, call: HandlerCall): Promise<boolean> {
    const id = owned.messageId;
    // It stays among the later copies (its outcome is reported as theirs are); those after it follow it now.
    const released = this.#leaders.get(id)?.messageId;
    const ref: LeaderRef = { messageId: id, payloadHash: owned.payloadHash, lane: this.source.read(record).lane };
    for (const [other, leader] of this.#leaders) {
      if (other !== id && leader.messageId === released && this.#outcomeOf(other) === undefined) this.#leaders.set(other, ref);
    }
    this.#running.add(id);
    try {
      // A strategy that holds no claims has no copy to take over with (a transaction's copies share a lane only within one group).
      const answer = (await this.#batch.claim?.(owned)) ?? { kind: 'owned', owned };
      if (answer.kind === 'settled' || this.#closed()) {
        if (answer.kind === 'owned') await this.#batch.release?.(answer.owned);
        const outcome: RecordOutcome =
          answer.kind === 'settled' ? answer.outcome : { kind: 'not-started', messageId: id, key: owned.key, reason: 'deadline' };
        return this.#settled(id, outcome);
      }
      this.#owned.set(id, answer.owned);
      return await this.#run(record, answer.owned, fn, call);
    } finally {
      this.#running.delete(id);
    }
  }

  /** A later copy, reached in its lane: decided from its first copy's outcome, which is final by then. */
  #follow(owned: OwnedRecord, leader: LeaderRef): boolean {
    const first = this.#outcomeOf(leader.messageId);
    if (first === undefined) return false; // not reachable in a lane; the after phase decides it
    return this.#settled(owned.messageId, followerOutcome(owned, first, leader.payloadHash));
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

  /** The owned record for a record id of this invocation. */
  ownedRecord(messageId: string): OwnedRecord {
    const owned = this.#owned.get(messageId);
    if (owned === undefined) throw new Error(`No owned record for message ${messageId}.`);
    return owned;
  }

  /** Finished records keep their executions; running ones keep their claims (interrupted); the rest are released. */
  unfinished(running: ReadonlySet<string>, error: unknown, aboutTheBatch = false): Map<string, Execution> {
    const executions = new Map(this.executions);
    const tag = aboutTheBatch ? { aboutTheBatch: true as const } : {};
    for (const record of this.leaderRecords) {
      const id = idOf(this.source, record);
      if (!executions.has(id))
        executions.set(id, running.has(id) ? { kind: 'interrupted', error, ...tag } : { kind: 'threw', error, ...tag });
    }
    return executions;
  }

  /** The handler never called `eachRecord`: the strategy reads its response. */
  answeredByHandler(response: unknown): Map<string, Execution> {
    const { source, owner, leaderRecords: leaders } = this;
    return this.#batch.answeredByHandler({ source, owner, leaders, owned: (id) => this.ownedRecord(id), response });
  }

  /**
   * Every record's final outcome, in delivery order: each first copy not yet
   * final is settled (once), then the later copies are decided from theirs.
   * A record with no outcome is retried: a gap here must never turn into a
   * silent acknowledgement.
   */
  async settle(executions: ReadonlyMap<string, Execution>, store: IdempotencyStore, storeResult: boolean): Promise<RecordOutcome[]> {
    const settled = new Map(this.found);
    const owned = this.leaderRecords.map((record) => this.ownedRecord(idOf(this.source, record)));
    const final = await Promise.all(
      owned.map((o) => {
        const execution = executions.get(o.messageId) ?? { kind: 'not-started', reason: 'handler-threw' };
        if (execution.kind === 'settled') return execution.outcome;
        const settle = () => settleClaim(store, o, execution, storeResult);
        const { trace } = this.settings;
        // A step with a write of its own: an interrupted record's claim is left to its lease; a transaction holds none.
        if (trace === undefined || o.token === undefined || execution.kind === 'interrupted') return settle();
        return trace.step(o, execution.kind === 'succeeded' ? 'complete' : 'release', settle);
      }),
    );
    for (const outcome of final) settled.set(outcome.messageId, outcome);
    for (const outcome of this.#followerOutcomes(settled)) settled.set(outcome.messageId, outcome);
    return this.original.map((r): RecordOutcome => {
      const id = idOf(this.source, r);
      return settled.get(id) ?? { kind: 'not-started', messageId: id, reason: 'handler-threw' };
    });
  }

  /**
   * Final outcomes of the later copies, given every first copy's final
   * outcome: decided in the lane when it reached them, else now (skipped
   * behind a failure, past the deadline, or run without `eachRecord`).
   */
  #followerOutcomes(settled: ReadonlyMap<string, RecordOutcome>): RecordOutcome[] {
    return [...this.#leaders].flatMap(([messageId, leader]) => {
      const execution = this.executions.get(messageId);
      if (execution?.kind === 'settled') return [execution.outcome];
      const first = this.#outcomeOf(leader.messageId) ?? settled.get(leader.messageId);
      return first === undefined ? [] : [followerOutcome(this.ownedRecord(messageId), first, leader.payloadHash)];
    });
  }
}
