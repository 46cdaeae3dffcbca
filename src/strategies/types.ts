/**
 * What the batch middleware asks of a strategy, and nothing more: claims, pipelined claims and transactions are objects
 * of this one shape. The middleware never asks which it has: what differs lives behind these steps, what they share
 * (lanes, later copies of a key, settling, the response) in the invocation (../batch/invocation.ts). A handler that
 * never names a strategy bundles none of its code.
 */
import type { Extractors } from '../engine/prepare.js';
import type { HeartbeatSetting, LeasePolicy } from '../engine/lease.js';
import type { RecordOutcome } from '../engine/outcomes.js';
import type { Execution, OwnedRecord } from '../engine/settle.js';
import type { BatchSource } from '../engine/source.js';
import type { IdempotencyStore } from '../engine/store.js';
import type { InvocationTrace } from '../engine/tracing.js';
import type { TransactionBuilder } from './transaction/builder.js';
import type { ClaimRequests } from './claim/requests.js';
import type { PreviousRecords } from '../engine/previous.js';

/** A later copy's first copy of its key in the batch: what the later copy is decided from. */
export interface LeaderRef {
  readonly messageId: string;
  readonly payloadHash: string | undefined;
  /** Its FIFO message group (undefined elsewhere). */
  readonly lane?: string | undefined;
}

/** One record's state after the before phase. */
export type AdmittedRecord<TRecord> =
  | { readonly kind: 'owned'; readonly record: TRecord; readonly owned: OwnedRecord }
  | { readonly kind: 'settled'; readonly record: TRecord; readonly outcome: RecordOutcome; readonly id?: string }
  /**
   * A later copy of a key already in its lane: not claimed; decided from its
   * first copy's outcome (here when that is known before the handler, else
   * when its lane reaches it).
   */
  | {
      readonly kind: 'follower';
      readonly record: TRecord;
      readonly owned: OwnedRecord;
      readonly leader: LeaderRef;
      /** FIFO: an earlier record of its own group is already known to come back. */
      readonly heldBack?: true;
    };

/** What the before phase needs. */
export interface AdmissionSettings<TRecord> extends Extractors<TRecord> {
  readonly source: BatchSource<unknown, TRecord, unknown>;
  readonly store: IdempotencyStore;
  readonly consumer: string;
  readonly claim: boolean;
  readonly leaseMs: number;
  /** This invocation's trace (the `tracing` option): each claim in its span. Absent: no tracing. */
  readonly trace?: InvocationTrace | undefined;
  /** A cutover (the `previous` option): each record about to run is first decided from the previous library's record. */
  readonly previous?: PreviousAdmission<TRecord> | undefined;
}

/** The `previous` option as admission uses it: the plug-in, and whether an adopted completion keeps its result. */
export interface PreviousAdmission<TRecord> {
  readonly records: PreviousRecords<TRecord>;
  readonly storeResult: boolean;
}

/** What one claim found: the record owned (with its token), or its outcome. */
export type ClaimAnswer =
  | { readonly kind: 'owned'; readonly owned: OwnedRecord }
  | { readonly kind: 'settled'; readonly outcome: RecordOutcome };

/** A record whose admission has started: known synchronously (invalid, follower) or once its claim returns. */
export interface ClaimInFlight<TRecord> {
  readonly record: TRecord;
  /** The prepared record (absent when it was found invalid before any request). */
  readonly owned?: OwnedRecord;
  readonly leader?: LeaderRef;
  readonly admission: Promise<AdmittedRecord<TRecord>>;
}

/**
 * The lifecycle's admission, handed to a strategy with each batch (the
 * lifecycle knows same-key copies and FIFO lanes; a strategy says only
 * whether its records are claimed, and through which view of the store).
 */
export interface Admitter {
  /** Claims (or, with `claim: false`, validates) every record concurrently; later copies and FIFO hold-back decided. */
  batch<TRecord>(records: readonly TRecord[], config: AdmissionSettings<TRecord>): Promise<AdmittedRecord<TRecord>[]>;
  /** Prepares every record and starts the claims without waiting for them. */
  start<TRecord>(records: readonly TRecord[], config: AdmissionSettings<TRecord>): ClaimInFlight<TRecord>[];
  /** Claims one prepared record. */
  record(owned: OwnedRecord, config: Pick<AdmissionSettings<unknown>, 'store' | 'consumer' | 'leaseMs' | 'trace'>): Promise<ClaimAnswer>;
}

/** What one invocation's batch starts from. */
export interface BatchStart<TRecord> {
  /** The batch's records, each id once, in delivery order. */
  readonly records: readonly TRecord[];
  /** How its records are prepared and claimed (key, payload, store, consumer, lease); the strategy says whether they are claimed. */
  readonly admit: Omit<AdmissionSettings<TRecord>, 'claim'>;
  /** The lifecycle's admission steps. */
  readonly admission: Admitter;
  /** This invocation's `context.memoryLimitInMB` (undefined without a context): what a strategy may choose its requests by. */
  readonly memoryLimitInMB: string | undefined;
}

/**
 * The record's handler, as the strategy runs it: with the strategy's `tx`
 * (`undefined` for a strategy that commits no writes: a claim) and, when it
 * has one, the heartbeat's signal.
 */
export type RunHandler = (tx: TransactionBuilder | undefined, signal?: AbortSignal) => Promise<unknown>;

/** Executions of the records a handler answered for itself (it never called `eachRecord`). */
export interface HandlerAnswer<TRecord> {
  readonly source: BatchSource<unknown, TRecord, unknown>;
  /** The middleware's name, for errors. */
  readonly owner: string;
  /** The first copy of each key: the records this invocation settles. */
  readonly leaders: readonly TRecord[];
  readonly owned: (messageId: string) => OwnedRecord;
  /** The handler's own response. */
  readonly response: unknown;
}

/** One invocation's batch under a strategy: the strategy's part of the invocation object. */
export interface AdmittedBatch<TRecord> {
  /** Every record's admission known before the handler, in delivery order (pipelined: claims not yet returned are `owned`, without a token). */
  readonly admissions: readonly AdmittedRecord<TRecord>[];
  /** Whether the handler is handed the owned records (pipelined: none, since none is known to be claimed yet). */
  readonly handsOwned: boolean;
  /** How its claims and completions are sent (claim strategy), for the log line; absent: the strategy has no choice. */
  readonly requests?: ClaimRequests;
  /** A first copy's own admission, once its claim has returned (the owned record with its token, or the outcome it found); absent: the owned record as admitted. */
  admitted?(owned: OwnedRecord): Promise<OwnedRecord | RecordOutcome>;
  /** Runs one owned record's handler under the strategy and settles it; never rejects. `timeLeftMs`: before the safety margin. */
  run(owned: OwnedRecord, handler: RunHandler, timeLeftMs: () => number): Promise<RecordOutcome>;
  /**
   * Claims a key afresh during the run (a FIFO copy taking over a claim
   * released unrun, cross-group.ts); absent: the strategy holds no claims
   * (a transaction's copies share a lane only within one group).
   */
  claim?(owned: OwnedRecord): Promise<ClaimAnswer>;
  /** Gives an owned record's claim up before it ran (held back in a merged lane); absent: it holds none. */
  release?(owned: OwnedRecord): Promise<void>;
  /** The handler never called `eachRecord`: what its own response (or its silence) says of each first copy. */
  answeredByHandler(answer: HandlerAnswer<TRecord>): Map<string, Execution>;
  /**
   * The batch is being answered: no record starts now. Stops what keeps
   * claims alive (waiting for renewals in flight) and resolves with the
   * admissions that returned since the handler started (pipelined claims).
   * Absent: nothing to stop, nothing returned late.
   */
  finish?(): Promise<readonly AdmittedRecord<TRecord>[]>;
}

/** A strategy as the batch middleware uses it, built once per middleware. */
export interface BatchStrategy {
  /** The `strategy` of the log line. */
  readonly name: 'claim' | 'transaction';
  /** Starts one invocation's batch: admits its records (claims them, or validates them). */
  begin<TRecord>(batch: BatchStart<TRecord>): Promise<AdmittedBatch<TRecord>>;
}

/** A delivery run under a transaction: the record it commits. */
export interface CommitDelivery {
  readonly messageId: string;
  readonly consumer: string;
  readonly key: string;
  readonly payloadHash?: string;
}

/**
 * A strategy as the single-event lifecycle uses it, built once per
 * middleware. Without `commit` the lifecycle claims the event before the
 * handler and settles the claim after it; with it, it claims nothing and
 * `eventBridgeHandler` runs the handler through `commit`.
 */
export interface EventStrategy {
  /** The `strategy` of the log line. */
  readonly name: 'claim' | 'transaction';
  /** Renews the claim while the handler runs (`claim({ heartbeat })`); absent: no renewal. */
  readonly heartbeat?: HeartbeatSetting;
  /**
   * Runs the handler with a transaction builder and commits its writes with
   * the idempotency record; never rejects. `timeLeftMs`: before the safety
   * margin (a cancelled commit is not retried past it).
   */
  commit?(delivery: CommitDelivery, handler: RunHandler, timeLeftMs: () => number): Promise<RecordOutcome>;
}

/** What a middleware hands a strategy's steps, once, when it is built. */
export interface StepSettings {
  readonly store: IdempotencyStore;
  readonly storeResult: boolean;
  readonly lease: LeasePolicy;
  /** The middleware's name, for errors. */
  readonly owner: string;
}

/**
 * Where a strategy is used: what the middleware's source can serve beyond
 * what every source can (pipelined claims, a transaction's batch commit
 * settings shape how an SQS batch is claimed and committed; a stream's shard
 * order and a single event have no use for them), and its store.
 */
export interface StrategyUse extends Pick<StepSettings, 'owner' | 'store'> {
  /** `claim({ pipelined: true })`. */
  readonly pipelined: boolean;
  /** `transaction({ commit, probeDuplicates })`. */
  readonly commitSettings: boolean;
}

/**
 * What a strategy object (what `claim()` or `transaction()` returns) is to a
 * middleware, beside its settings: the middleware calls these and never asks
 * which strategy it has. Members of the object's prototype, so its own
 * properties (what equality and JSON see) are exactly its settings.
 */
export interface StrategySteps {
  /** Whether this middleware can serve the strategy; a `TypeError` naming the `strategy` option when it cannot. Once, when the middleware is built. */
  check(use: StrategyUse): void;
  /** Its steps for one batch middleware. */
  batch(settings: StepSettings): BatchStrategy;
  /** Its steps for one single-event middleware. */
  event(settings: Pick<StepSettings, 'store' | 'storeResult'>): EventStrategy;
}

/** Whether `v` is a strategy object a factory made (a hand-made copy of its settings has no steps). */
export function isStrategy(v: unknown): v is StrategySteps {
  if (typeof v !== 'object' || v === null) return false;
  const { check, batch, event } = v as Partial<StrategySteps>;
  return typeof check === 'function' && typeof batch === 'function' && typeof event === 'function';
}

/** A strategy object: its settings as its own properties (frozen; what equality and JSON see), its steps on its prototype. */
export function strategyObject<T extends object>(steps: StrategySteps, settings: T): T & StrategySteps {
  return Object.freeze(Object.assign(Object.create(steps) as StrategySteps, settings)) as T & StrategySteps;
}
