/**
 * What the batch middleware asks of a strategy, and nothing more: the claim
 * strategy (every record claimed before the handler), pipelined claims (each
 * record runs when its own claim returns) and the transaction strategy (the
 * handler's writes and the idempotency record in one transaction, with group
 * commit) are objects of this one shape. The middleware picks one when it is
 * built and never asks which it has: what differs between them lives behind
 * these steps, what they share (lanes, later copies of a key, settling,
 * the response) in the invocation (../invocation.ts).
 *
 * An entry point brings a strategy in by importing it, so a handler that
 * never names the transaction strategy bundles none of its code.
 */
import type { HeartbeatSetting, LeasePolicy } from '../engine/lease.js';
import type { Strategy } from '../engine/middleware-options.js';
import type { RecordOutcome } from '../engine/outcomes.js';
import type { Execution, OwnedRecord } from '../engine/settle.js';
import type { BatchSource } from '../engine/source.js';
import type { IdempotencyStore } from '../engine/store.js';
import type { TransactionBuilder } from './transaction/builder.js';
import type { ConflictPolicy } from './transaction/commit-step.js';
import type { ProbeMode } from './transaction/group-commit/duplicate-probe.js';
import type { CommitMode } from './transaction/group-commit/queue.js';
import type { Admission, AdmitConfig, ClaimAnswer } from '../batch/admit.js';

/** What one invocation's batch starts from. */
export interface BatchStart<TRecord> {
  /** The batch's records, each id once, in delivery order. */
  readonly records: readonly TRecord[];
  /** How its records are prepared and claimed (key, payload, store, consumer, lease); the strategy says whether they are claimed. */
  readonly admit: Omit<AdmitConfig<TRecord>, 'claim'>;
}

/** The record's handler, as the strategy runs it: with the strategy's `tx` and, when it has one, the heartbeat's signal. */
export type RunHandler = (tx: TransactionBuilder, signal?: AbortSignal) => Promise<unknown>;

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
export interface StrategyBatch<TRecord> {
  /** Every record's admission known before the handler, in delivery order (pipelined: claims not yet returned are `owned`, without a token). */
  readonly admissions: readonly Admission<TRecord>[];
  /** Whether the handler is handed the owned records (pipelined: none, since none is known to be claimed yet). */
  readonly handsOwned: boolean;
  /** A first copy's own admission, once its claim has returned (the owned record with its token, or the outcome it found). */
  admitted(owned: OwnedRecord): Promise<OwnedRecord | RecordOutcome>;
  /** Runs one owned record's handler under the strategy and settles it; never rejects. `timeLeftMs`: before the safety margin. */
  run(owned: OwnedRecord, handler: RunHandler, timeLeftMs: () => number): Promise<RecordOutcome>;
  /** Claims a key afresh during the run (a FIFO copy taking over a claim released unrun, cross-group.ts). */
  claim(owned: OwnedRecord): Promise<ClaimAnswer>;
  /** Gives an owned record's claim up before it ran (held back in a merged lane). */
  release(owned: OwnedRecord): Promise<void>;
  /** The handler never called `eachRecord`: what its own response (or its silence) says of each first copy. */
  answeredByHandler(answer: HandlerAnswer<TRecord>): Map<string, Execution>;
  /**
   * The batch is being answered: no record starts now. Stops what keeps
   * claims alive (waiting for renewals in flight) and resolves with the
   * admissions that returned since the handler started (pipelined claims).
   */
  finish(): Promise<readonly Admission<TRecord>[]>;
}

/** A strategy as the batch middleware uses it, built once per middleware. */
export interface BatchStrategy {
  /** The `strategy` of the log line. */
  readonly name: Strategy;
  /** Starts one invocation's batch: admits its records (claims them, or validates them). */
  begin<TRecord>(batch: BatchStart<TRecord>): Promise<StrategyBatch<TRecord>>;
}

/** What a strategy's steps are built from, once per middleware: the resolved options they read, and the middleware's name. */
export interface StepSettings {
  readonly store: IdempotencyStore;
  readonly storeResult: boolean;
  readonly lease: LeasePolicy & { readonly heartbeat?: HeartbeatSetting | undefined };
  readonly onConflict: ConflictPolicy;
  readonly commit?: CommitMode | undefined;
  readonly probeDuplicates?: ProbeMode | undefined;
  /** The middleware's name, for errors. */
  readonly owner: string;
}

/** Builds a strategy's steps for one middleware. */
export type StepsFactory = (settings: StepSettings) => BatchStrategy;

/**
 * Where a strategy object (what `claim()` or `transaction()` returns)
 * carries its batch steps: the batch middleware builds them from the
 * object, and imports no strategy itself. A symbol, so the object's
 * settings (what the option checks and the types see) stay as they are.
 */
export const BATCH_STEPS: unique symbol = Symbol('effectively-once: the batch steps of a strategy');

/**
 * `strategy`, frozen, carrying `steps` under {@link BATCH_STEPS}: not
 * enumerable, so the object's settings (what the option checks, equality
 * and JSON see) are exactly what the factory set.
 */
export function withSteps<T extends object>(strategy: T, steps: StepsFactory): Readonly<T> {
  Object.defineProperty(strategy, BATCH_STEPS, { value: steps, enumerable: false });
  return Object.freeze(strategy);
}
