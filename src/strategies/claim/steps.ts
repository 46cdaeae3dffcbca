/**
 * The claim strategy's steps (batch claims): every record is claimed before the handler, all at once; each runs under
 * its claim (renewed by the heartbeat when asked) and is settled as soon as it finishes, with fenced writes.
 */
import type { HeartbeatSetting } from '../../engine/lease.js';
import type { ClaimsHeartbeat, KeepLease, LeaseKeeper } from '../../engine/heartbeat.js';
import type { RecordOutcome } from '../../engine/outcomes.js';
import { releaseClaim, settleClaim, type Execution, type OwnedRecord } from '../../engine/settle.js';
import { idOf } from '../../engine/source.js';
import type { IdempotencyStore } from '../../engine/store.js';
import { CoalescedStore } from './coalesce.js';
import { disabledTransaction } from '../disabled-tx.js';
import type {
  Admission,
  Admit,
  AdmitConfig,
  BatchStrategy,
  ClaimAnswer,
  HandlerAnswer,
  RunHandler,
  StepSettings,
  StrategyBatch,
  StrategySteps,
} from '../types.js';
import { strategyObject } from '../types.js';

/** What the claim strategy's steps are built from: the middleware's settings, and `claim({ heartbeat })`. */
export interface ClaimSettings extends StepSettings {
  readonly heartbeat: HeartbeatSetting;
  /** The heartbeat's code, brought in by `claim()` only: the default claim strategy (no heartbeat) does not bundle it. */
  readonly startHeartbeat?: ClaimsHeartbeat | undefined;
}

/**
 * One invocation's batch under the claim strategy. `keep`: each owned
 * claim's heartbeat starts with the run (a record waiting in its lane must
 * keep its claim too) and stops before the claim is completed or released.
 */
export class ClaimBatch<TRecord> implements StrategyBatch<TRecord> {
  readonly admissions: readonly Admission<TRecord>[];
  readonly handsOwned: boolean = true;
  protected readonly settings: ClaimSettings;
  protected readonly admit: AdmitConfig<TRecord>;
  readonly #admission: Admit;
  readonly #keepLease: KeepLease | undefined;
  /** Heartbeats by message id. */
  readonly #keepers = new Map<string, LeaseKeeper>();
  /** Its writes would never be sent: every call throws (a silently dropped write is a lost effect). */
  readonly #tx: ReturnType<typeof disabledTransaction>;
  /** This batch's view of the store: claims and completions coalesced when the store has batched calls. */
  readonly #coalesced: CoalescedStore | undefined;
  readonly #store: IdempotencyStore;

  constructor(
    settings: ClaimSettings,
    admit: AdmitConfig<TRecord>,
    admission: Admit,
    admissions: readonly Admission<TRecord>[],
    keepLease: KeepLease | undefined,
    coalesced?: CoalescedStore,
  ) {
    this.#admission = admission;
    this.settings = settings;
    this.#coalesced = coalesced;
    this.#store = coalesced ?? settings.store;
    this.admit = admit;
    this.admissions = admissions;
    this.#keepLease = keepLease;
    this.#tx = disabledTransaction(`the strategy is claim(); use ${settings.owner}({ strategy: transaction() }).`);
    for (const a of admissions) if (a.kind === 'owned') this.#keep(a.owned);
  }

  #keep(owned: OwnedRecord): void {
    if (this.#keepLease === undefined || owned.token === undefined) return;
    this.#keepers.set(owned.messageId, this.#keepLease({ id: owned.id, token: owned.token, key: owned.key }));
  }

  /**
   * Runs a claimed record and settles it at once rather than after the whole
   * batch: a crash later in the batch then cannot make this record's effect
   * run again, and the next record of a FIFO group starts only once this one
   * is recorded. The heartbeat stops before the claim is completed or released.
   */
  async run(owned: OwnedRecord, handler: RunHandler): Promise<RecordOutcome> {
    const { storeResult } = this.settings;
    const store = this.#store;
    const keeper = this.#keepers.get(owned.messageId);
    const base = { messageId: owned.messageId, key: owned.key };
    // Lost while it waited in its lane: never start it.
    if (keeper?.lost !== undefined) {
      await releaseClaim(store, owned);
      return { ...base, kind: 'lease-lost', error: keeper.lost };
    }
    let execution: Execution;
    const coalesced = this.#coalesced;
    const ran = () => handler(this.#tx, keeper?.signal);
    try {
      execution = { kind: 'succeeded', result: await (coalesced === undefined ? ran() : coalesced.running(ran)) };
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

  async claim(owned: OwnedRecord): Promise<ClaimAnswer> {
    const answer = await this.#admission.record(owned, this.admit);
    if (answer.kind === 'owned') this.#keep(answer.owned);
    return answer;
  }

  async release(owned: OwnedRecord): Promise<void> {
    await this.#keepers.get(owned.messageId)?.stop();
    await releaseClaim(this.#store, owned);
  }

  /** Executions for records the handler ran without `eachRecord`: its own response decides. */
  answeredByHandler({ source, leaders, response }: HandlerAnswer<TRecord>): Map<string, Execution> {
    const executions = new Map<string, Execution>();
    const failed = source.retriedIn(response);
    // Streams: naming a shard's first failure is enough for the mapping, so the records after it did not run either.
    const stopped = new Set<string | undefined>();
    for (const record of leaders) {
      const id = idOf(source, record);
      const { lane } = source.read(record);
      if (source.behindFailures !== undefined && lane !== undefined && failed.has(id)) stopped.add(lane);
      const threw = failed.has(id) || stopped.has(lane);
      const error = new Error('Reported in the handler’s batchItemFailures.');
      executions.set(id, threw ? { kind: 'threw', error } : { kind: 'succeeded', result: undefined });
    }
    return executions;
  }

  /**
   * The invocation ends: a record still running keeps its claim only until
   * its lease passes. Waits for renewals in flight, so none lands after the
   * claims are settled or the response is given (it would extend a lease
   * left to run out).
   */
  async finish(): Promise<readonly Admission<TRecord>[]> {
    await Promise.all([...this.#keepers.values()].map((keeper) => keeper.stop()));
    return [];
  }
}

/**
 * The claim strategy with batch claims: every record claimed, concurrently,
 * before the handler runs. `coalesce`: the batch's claims and completions
 * go in the store's batched calls when it has them (the default); off for
 * pipelined claims, whose records each send their own requests.
 */
export function claimBatchStrategy(settings: ClaimSettings, coalesce = true): BatchStrategy {
  return {
    name: 'claim',
    async begin(batch) {
      const coalesced = coalesce ? CoalescedStore.over(settings.store) : undefined;
      const admit = { ...batch.admit, claim: true, ...(coalesced === undefined ? {} : { store: coalesced }) };
      const keepLease = settings.startHeartbeat?.(settings.heartbeat, settings.store, admit.leaseMs);
      return new ClaimBatch(settings, admit, batch.admission, await batch.admission.batch(batch.records, admit), keepLease, coalesced);
    },
  };
}

/**
 * The steps of the default claim strategy (no `strategy` option, so no heartbeat): nothing to check (a middleware
 * checks only the strategy it is given, and this one needs nothing of a store), an event claimed without renewal.
 * `claim()` has its own (claim.ts), which check and run its heartbeat: a handler without it bundles neither. The
 * memory-sized default (memory-sized.ts) runs other batch steps on these.
 */
export const defaultClaimSteps: StrategySteps = {
  check() {},
  batch: (settings) => claimBatchStrategy({ ...settings, heartbeat: false }),
  event: () => ({ name: 'claim' }),
};

/** No `strategy` option: `claim()` with its defaults, without importing the factory (and pipelined claims with it); `sqsIdempotency` runs it below 512 MB (memory-sized.ts). */
export const defaultClaim = /* @__PURE__ */ strategyObject(defaultClaimSteps, {
  kind: 'claim',
  pipelined: false,
  heartbeat: false,
} as const);
