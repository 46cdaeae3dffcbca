/**
 * `runChaos()`: the reference service's local run (fauxqs + DynamoDB Local,
 * the real handlers behind local event sources) once per seed, each with a
 * seeded mix of faults, until the queues drain; then the per-strategy
 * verdict. One DynamoDB Local serves every seed (each run has its own
 * tables); each run starts its own local SQS.
 */
import { startDynamoDBLocal } from '../../infra/dynamodb-local.js';
import { defaults as localDefaults } from '../local/options.js';
import type { MetricTotals } from '../local/metrics-collector.js';
import { runLocal, type Progress } from '../local/run.js';
import { runGroupCommitChaos, type GroupCommitFaults } from './group-commit.js';
import { createChaos, type ChaosObservations } from './harness.js';
import { strategyRows, type StrategyRow } from './invariants.js';
import { defaultRates, defaultTiming, type ChaosRates, type ChaosTiming } from './plan.js';

/** Options of {@link runChaos}. */
export interface ChaosOptions {
  /** First seed; the run uses `seed`, `seed + 1`, ... */
  readonly seed: number;
  /** How many seeds. */
  readonly seeds: number;
  /** Orders per seed: each is a payment message, a notification and an OrderPaid event (plus re-sends). */
  readonly messages: number;
  readonly rates?: ChaosRates;
  readonly timing?: ChaosTiming;
  /** Concurrent pollers per queue. */
  readonly pollers?: number;
  /** Use this DynamoDB Local instead of starting one. */
  readonly dynamodbEndpoint?: string;
  readonly signal?: AbortSignal;
  /** One line per event worth telling (a seed starts, finishes). */
  readonly onLine?: (line: string) => void;
  /** Progress samples of the seed being run. */
  readonly onProgress?: (seed: number, progress: Progress) => void;
  /** Give up on one seed after this long (default 5 minutes). */
  readonly timeoutMs?: number;
}

/** What one seed's faults were, in numbers. */
export interface FaultSummary {
  readonly dynamodb: ChaosObservations['dynamodb'];
  readonly crashes: ChaosObservations['crashes'];
  readonly relayCrashes: ChaosObservations['relayCrashes'];
  readonly deliveredTwice: ChaosObservations['deliveredTwice'];
  readonly shortTimeouts: ChaosObservations['shortTimeouts'];
  readonly slowEffects: number;
  /** Batches whose delete was skipped (a crash between the response and the ACK). */
  readonly lostAcks: number;
  /** Invocations that crashed, per consumer. */
  readonly crashedInvocations: Record<'payments' | 'notifications' | 'points', number>;
  /** Invocations that ran past their function timeout, per consumer. */
  readonly timedOutInvocations: Record<'payments' | 'notifications' | 'points', number>;
  /** Transient side-effect failures (first attempt of chosen keys). */
  readonly transientFailures: number;
  /** The group-commit consumer's faults (scripts/chaos/group-commit.ts). */
  readonly groupCommit: GroupCommitFaults;
}

/** One seed's result. */
export interface SeedResult {
  readonly seed: number;
  readonly ok: boolean;
  readonly rows: readonly StrategyRow[];
  readonly faults: FaultSummary;
  /** The EMF metrics the handlers emitted under this seed, summed per consumer. */
  readonly metrics: MetricTotals;
  readonly deliveries: number;
  readonly runMs: number;
  /** The SQS-only paths, summed over consumers: permanent failures sent to a DLQ (acknowledged), and records backed off. */
  readonly sqsPaths: { readonly deadLettered: number; readonly backedOff: number };
}

/** The whole chaos run. */
export interface ChaosReport {
  readonly ok: boolean;
  readonly options: {
    readonly seed: number;
    readonly seeds: number;
    readonly messages: number;
    readonly rates: ChaosRates;
    readonly timing: ChaosTiming;
  };
  readonly seeds: readonly SeedResult[];
  readonly totalMs: number;
}

async function runSeed(seed: number, options: ChaosOptions, endpoint: string): Promise<SeedResult> {
  const rates = options.rates ?? defaultRates;
  const timing = options.timing ?? defaultTiming;
  const chaos = createChaos(seed, rates, timing);
  const workload = { orders: options.messages, seed, pollers: options.pollers ?? localDefaults.pollers };
  const report = await runLocal({
    ...workload,
    visibilityTimeoutSeconds: timing.visibilityTimeoutSeconds,
    dynamodbEndpoint: endpoint,
    hooks: chaos.hooks,
    timeoutMs: options.timeoutMs ?? 300_000,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onProgress === undefined ? {} : { onProgress: (p: Progress) => options.onProgress?.(seed, p) }),
  });
  const observations = chaos.observations();
  const grouped = await runGroupCommitChaos({ seed, orders: options.messages, endpoint, rates, pollers: workload.pollers });
  const rows = [...strategyRows(report, observations), grouped.row];
  const s = report.sources;
  return {
    seed,
    ok: rows.every((r) => r.ok),
    rows,
    faults: {
      dynamodb: observations.dynamodb,
      crashes: observations.crashes,
      relayCrashes: observations.relayCrashes,
      deliveredTwice: observations.deliveredTwice,
      shortTimeouts: observations.shortTimeouts,
      slowEffects: observations.slowEffects,
      lostAcks: s.payments.lostAcks + s.notifications.lostAcks,
      crashedInvocations: { payments: s.payments.crashes, notifications: s.notifications.crashes, points: s.points.crashes },
      timedOutInvocations: { payments: s.payments.timeouts, notifications: s.notifications.timeouts, points: s.points.timeouts },
      transientFailures: report.faultsInjected.publish + report.faultsInjected.send + report.faultsInjected.points,
      groupCommit: grouped.faults,
    },
    metrics: report.metrics,
    deliveries: report.throughput.deliveries,
    runMs: report.timing.runMs,
    sqsPaths: {
      deadLettered: Object.values(report.outcomes).reduce((n, t) => n + (t['dead-lettered'] ?? 0), 0),
      backedOff: Object.values(report.backedOff).reduce((n, b) => n + b, 0),
    },
  };
}

/**
 * Runs the chaos run: every seed in turn, then the verdict (`ok` is false
 * when any invariant broke under any seed).
 *
 * @example
 * ```ts
 * const report = await runChaos({ seed: 1, seeds: 2, messages: 100 });
 * if (!report.ok) process.exitCode = 1;
 * ```
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const rates = options.rates ?? defaultRates;
  const timing = options.timing ?? defaultTiming;
  const ddb = options.dynamodbEndpoint === undefined ? await startDynamoDBLocal() : undefined;
  const endpoint = options.dynamodbEndpoint ?? (ddb as NonNullable<typeof ddb>).endpoint;
  const seeds: SeedResult[] = [];
  try {
    for (let i = 0; i < options.seeds; i += 1) {
      const seed = options.seed + i;
      options.onLine?.(`seed ${seed}: ${options.messages} orders under chaos (${i + 1}/${options.seeds})`);
      const result = await runSeed(seed, options, endpoint);
      seeds.push(result);
      const broken = result.rows.flatMap((r) => r.invariants.filter((inv) => !inv.ok).map((inv) => `${r.strategy}: ${inv.name}`));
      options.onLine?.(
        `seed ${seed}: ${result.ok ? 'all invariants hold' : `BROKEN ${broken.join('; ')}`} ` +
          `(${result.deliveries} deliveries in ${(result.runMs / 1000).toFixed(1)} s)`,
      );
    }
  } finally {
    await ddb?.stop();
  }
  return {
    ok: seeds.every((s) => s.ok),
    options: { seed: options.seed, seeds: options.seeds, messages: options.messages, rates, timing },
    seeds,
    totalMs: Date.now() - started,
  };
}
