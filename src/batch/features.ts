/**
 * The optional parts of the batch lifecycle, handed in by the entry point
 * that builds the middleware: the main entry (`effectively-once`) gives them
 * all (all-features.ts); the claim-only entry (`effectively-once/claim`)
 * gives none. A part that is not handed in is never reached from the claim
 * entry, so a bundler drops its code (test/unit/claim-bundle.test.ts): the
 * strategy and the options are chosen at run time, which no bundler can see
 * through, so the choice is made here, by imports. Types only.
 */
import type { DuplicateRate, ProbeMode } from '../transaction/group-commit/duplicate-probe.js';
import type { HeartbeatSetting } from '../engine/lease.js';
import type { RecordOutcome } from '../engine/outcomes.js';
import type { IdempotencyStore } from '../stores/types.js';
import type { TransactionBuilder } from '../transaction/builder.js';
import type { CommitMode } from '../transaction/group-commit/queue.js';
import type { HeartbeatPlan, LeaseKeeper } from '../engine/heartbeat.js';
import type { BatchLogLine } from '../observe/log.js';
import type { MetricsOption } from '../observe/metrics.js';
import type { OwnedRecord } from '../engine/settle.js';
import type { ConflictPolicy } from '../transaction/commit-step.js';

/** One record under the transaction strategy: what the batch run hands the transaction part. */
export interface TransactionalRecord {
  readonly owned: OwnedRecord;
  readonly consumer: string;
  readonly storeResult: boolean;
  readonly onConflict: ConflictPolicy;
  /** Time left before the safety margin, ms: a commit cancelled by contention is not retried past it. */
  readonly timeLeftMs: () => number;
  /** Runs the handler with the record's `tx`. */
  readonly handler: (tx: TransactionBuilder) => Promise<unknown>;
}

/** Group commit's duplicate probe for one batch: the container's rate, and the batch's idempotency record ids. */
export interface DuplicateProbe {
  readonly rate: DuplicateRate | undefined;
  readonly ids: readonly string[];
}

/** The transaction strategy: a run per batch (its group-commit queue), then one call per record. */
export interface TransactionFeature {
  /** The container's duplicate rate, kept across invocations by the middleware (`probeDuplicates`). */
  duplicateRate(mode: ProbeMode): DuplicateRate;
  /** Starts a batch; the probe (when the rate asks for it) is sent at once, while the handlers run. */
  batch(store: IdempotencyStore, mode: CommitMode, probe: DuplicateProbe): (record: TransactionalRecord) => Promise<RecordOutcome>;
}

/** The lease heartbeat (`lease: { heartbeat }`). */
export interface HeartbeatFeature {
  plan(setting: HeartbeatSetting | undefined, store: IdempotencyStore, leaseMs: number, since: number): HeartbeatPlan | undefined;
  keep(plan: HeartbeatPlan, claim: { readonly id: string; readonly token: string; readonly key: string }): LeaseKeeper;
}

/** The EMF / Powertools metrics of each batch (`metrics`). */
export interface MetricsFeature {
  /** Resolves the option once, when the middleware is built; returns the per-batch writer (never throws), or `undefined` for none. */
  sink(option: MetricsOption): ((line: BatchLogLine, answeredEarly: boolean) => void) | undefined;
}

/** The optional parts a batch middleware runs with; an absent part is off (its options are refused by the entry). */
export interface BatchFeatures {
  readonly transaction?: TransactionFeature;
  readonly heartbeat?: HeartbeatFeature;
  readonly metrics?: MetricsFeature;
}
