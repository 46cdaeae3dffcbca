/**
 * The fault mix of a chaos run: how often each fault strikes, and the
 * shortened timings that let crashed claims and redeliveries resolve within
 * seconds instead of Lambda's minutes. Rates are chances per request attempt
 * (DynamoDB), per record and crash point (pipeline), per batch (mapping) or
 * per business key (slow effects); the seed decides where they fall.
 */
import type { LeasePolicy } from '../../src/engine/lease.js';
import { middyOptions } from '../../functions/shared/middy.js';

/** How often each fault strikes (0..1). */
export interface ChaosRates {
  /** DynamoDB `ProvisionedThroughputExceededException`, per request attempt (the SDK retries it). */
  readonly throttle: number;
  /** `TransactionCanceledException` (TransactionConflict) per `TransactWriteItems` attempt (not retried by the SDK). */
  readonly transactionConflict: number;
  /** Connection reset before the request reached the table, per write attempt (the SDK retries it). */
  readonly networkBefore: number;
  /** Connection reset after the table applied the write, per write attempt: the SDK repeats a write that landed. */
  readonly networkAfter: number;
  /** Extra latency per request attempt. */
  readonly latency: number;
  /** The Lambda dies right after a claim, per record. */
  readonly crashAfterClaim: number;
  /** The Lambda dies after the effect, before the completion is written, per record. */
  readonly crashBeforeComplete: number;
  /** The Lambda dies after the completion, before the batch response is returned, per record. */
  readonly crashAfterComplete: number;
  /** A batch handed to two invocations at once (two pollers, same messages), per batch. */
  readonly deliverTwice: number;
  /** A batch that times out mid-way (a function timeout of a few dozen ms), per batch. */
  readonly timeoutBatch: number;
  /** A business key whose first side effect outlasts the visibility timeout (in flight twice), per key. */
  readonly slowEffect: number;
  /** The outbox relay dies after `PutEvents` returned, before marking, per outbox item (first time only). */
  readonly crashRelayAfterPutEvents: number;
  /** The outbox relay dies just before marking an item published, per outbox item (first time only). */
  readonly crashRelayBeforeMark: number;
}

/** The default mix: every fault shows up a few times in a run of a few hundred messages. */
export const defaultRates: ChaosRates = Object.freeze({
  throttle: 0.03,
  transactionConflict: 0.03,
  networkBefore: 0.01,
  networkAfter: 0.02,
  latency: 0.05,
  crashAfterClaim: 0.005,
  crashBeforeComplete: 0.005,
  crashAfterComplete: 0.005,
  deliverTwice: 0.05,
  timeoutBatch: 0.03,
  slowEffect: 0.01,
  crashRelayAfterPutEvents: 0.02,
  crashRelayBeforeMark: 0.02,
});

/** Timings of a chaos run, scaled down from the deployed ones. */
export interface ChaosTiming {
  /** Visibility timeout of the local queues, in seconds. */
  readonly visibilityTimeoutSeconds: number;
  /**
   * Function timeout of every consumer (deployed: 30 s). Longer than the
   * visibility timeout on purpose, so a slow record is delivered again while
   * it still runs.
   */
  readonly functionTimeoutMs: number;
  /** Claim leases: the remaining time plus `marginMs` (deployed: + 5 s, at least 10 s). */
  readonly lease: LeasePolicy;
  /** How long a slow effect takes: past the visibility timeout, within the function timeout. */
  readonly slowEffectMs: number;
  /**
   * Function timeout range of a batch chosen to time out mid-way, ms. The reference handlers answer
   * `middyOptions.timeoutEarlyInMillis` (500 ms) before the timeout, so the range starts past that margin:
   * Middy cuts the batch 20 to 150 ms in, which is the mid-way cut the run means to exercise.
   */
  readonly timeoutBatchMs: readonly [number, number];
  /** Added latency of a slow DynamoDB request, ms. */
  readonly latencyMs: number;
}

export const defaultTiming: ChaosTiming = Object.freeze({
  visibilityTimeoutSeconds: 2,
  functionTimeoutMs: 3_000,
  lease: { marginMs: 500, floorMs: 1_000, capMs: 60_000 },
  slowEffectMs: 2_300,
  timeoutBatchMs: [middyOptions.timeoutEarlyInMillis + 20, middyOptions.timeoutEarlyInMillis + 150] as const,
  latencyMs: 40,
});

/** Rates with every fault off: a chaos run that must look like a plain local run. */
export const noFaults: ChaosRates = Object.freeze(
  Object.fromEntries(Object.keys(defaultRates).map((k) => [k, 0])) as unknown as ChaosRates,
);
