/**
 * The claim strategy's steps (batch claims): every record is claimed before the handler, all at once; each runs under
 * its claim (renewed by the heartbeat when asked: heartbeat-batch.ts) and is settled as soon as it finishes, with fenced
 * writes. How the claims and completions are sent is chosen per invocation (requests.ts).
 */
import type { HeartbeatSetting } from '../../engine/lease.js';
import type { RecordOutcome } from '../../engine/outcomes.js';
import { releaseClaim, settleClaim, type Execution, type OwnedRecord } from '../../engine/settle.js';
import { idOf } from '../../engine/source.js';
import type { IdempotencyStore } from '../../engine/store.js';
import { CoalescedStore } from './coalesce.js';
import { claimRequests, type ClaimRequests } from './requests.js';
import type {
  AdmittedRecord,
  Admitter,
  AdmissionSettings,
  BatchStrategy,
  ClaimAnswer,
  HandlerAnswer,
  RunHandler,
  StepSettings,
  AdmittedBatch,
  StrategySteps,
} from '../types.js';
import { strategyObject } from '../types.js';

/** What the claim strategy's steps are built from: the middleware's settings, and `claim({ heartbeat })`. */
export interface ClaimSettings extends StepSettings {
  readonly heartbeat: HeartbeatSetting;
  /** The heartbeat's code, brought in by `claim()` only: the default claim strategy (no heartbeat) does not bundle it. */
  readonly startHeartbeat?: StartHeartbeat | undefined;
}

/**
 * Starts the heartbeat of a batch's claims, about to be sent: what makes the batch that keeps their leases once they
 * are admitted (heartbeat-batch.ts), or `undefined` when the setting leaves it off or the store cannot renew.
 */
export type StartHeartbeat = <TRecord>(
  settings: ClaimSettings,
  admit: AdmissionSettings<TRecord>,
  admission: Admitter,
  coalesced: CoalescedStore | undefined,
) => ((admissions: readonly AdmittedRecord<TRecord>[]) => ClaimBatch<TRecord>) | undefined;

/** One invocation's batch under the claim strategy (with the lease heartbeat: its subclass, heartbeat-batch.ts). */
export class ClaimBatch<TRecord> implements AdmittedBatch<TRecord> {
  readonly admissions: readonly AdmittedRecord<TRecord>[];
  readonly handsOwned: boolean = true;
  readonly requests: ClaimRequests;
  protected readonly settings: ClaimSettings;
  protected readonly admit: AdmissionSettings<TRecord>;
  /** This batch's view of the store: claims and completions coalesced when the store has batched calls. */
  protected readonly store: IdempotencyStore;
  readonly #admission: Admitter;
  readonly #coalesced: CoalescedStore | undefined;

  constructor(
    settings: ClaimSettings,
    admit: AdmissionSettings<TRecord>,
    admission: Admitter,
    admissions: readonly AdmittedRecord<TRecord>[],
    coalesced?: CoalescedStore,
  ) {
    this.#admission = admission;
    this.settings = settings;
    this.#coalesced = coalesced;
    this.store = coalesced ?? settings.store;
    // A store without batched calls sends each request alone whatever was chosen: the line says what was sent.
    this.requests = coalesced?.requests ?? 'per-record';
    this.admit = admit;
    this.admissions = admissions;
  }

  /** Runs the record's handler (with the heartbeat's `signal`, when there is one) and says how it went; never rejects. */
  protected async execute(handler: RunHandler, signal?: AbortSignal): Promise<Extract<Execution, { kind: 'succeeded' | 'threw' }>> {
    const coalesced = this.#coalesced;
    // No tx: a claim commits no writes (eachRecord.inTransaction refuses to run without one).
    const ran = () => handler(undefined, signal);
    try {
      return { kind: 'succeeded', result: await (coalesced === undefined ? ran() : coalesced.running(ran)) };
    } catch (error) {
      return { kind: 'threw', error };
    }
  }

  /**
   * Runs a claimed record and settles it at once rather than after the whole
   * batch: a crash later in the batch then cannot make this record's effect
   * run again, and the next record of a FIFO group starts only once this one
   * is recorded.
   */
  async run(owned: OwnedRecord, handler: RunHandler): Promise<RecordOutcome> {
    return settleClaim(this.store, owned, await this.execute(handler), this.settings.storeResult);
  }

  claim(owned: OwnedRecord): Promise<ClaimAnswer> {
    return this.#admission.record(owned, this.admit);
  }

  async release(owned: OwnedRecord): Promise<void> {
    await releaseClaim(this.store, owned);
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
}

/**
 * The claim strategy with batch claims: every record claimed, concurrently,
 * before the handler runs. Its requests: `requests` when given, else chosen
 * per invocation (requests.ts), coalesced through the store's batched calls
 * when it has them.
 */
export function claimBatchStrategy(settings: ClaimSettings, requests?: ClaimRequests): BatchStrategy {
  return {
    name: 'claim',
    async begin(batch) {
      const coalesced = CoalescedStore.over(settings.store, requests ?? claimRequests(batch.memoryLimitInMB));
      const admit = { ...batch.admit, claim: true, ...(coalesced === undefined ? {} : { store: coalesced }) };
      // Started before the claims are sent: their leases are proven from then.
      const heartbeat = settings.startHeartbeat?.(settings, admit, batch.admission, coalesced);
      const admissions = await batch.admission.batch(batch.records, admit);
      return heartbeat?.(admissions) ?? new ClaimBatch(settings, admit, batch.admission, admissions, coalesced);
    },
  };
}

/**
 * The steps of the default claim strategy (no `strategy` option, so no heartbeat): nothing to check (a middleware
 * checks only the strategy it is given, and this one needs nothing of a store), an event claimed without renewal.
 * `claim()` has its own (claim.ts), which check and run its heartbeat: a handler without it bundles neither.
 */
export const defaultSteps: StrategySteps = {
  check() {},
  batch: (settings) => claimBatchStrategy({ ...settings, heartbeat: false }),
  event: () => ({ name: 'claim' }),
};

/** No `strategy` option: `claim()` with its defaults, without importing the factory (and pipelined claims with it). */
export const defaultClaim = /* @__PURE__ */ strategyObject(defaultSteps, { kind: 'claim', pipelined: false, heartbeat: false } as const);
