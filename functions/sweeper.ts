/**
 * sweeper (schedule, every 5 minutes). Read-only.
 *
 * Finds IN_PROGRESS claims whose lease ended long ago through the sparse
 * in-flight index: a consumer crashed holding them and no retry took them
 * over (its message was exhausted into a DLQ, or never came back). Reports
 * them as one structured log line and a `StaleClaims` metric (CloudWatch
 * Embedded Metric Format, no API call); it changes nothing, because deciding
 * whether such an effect happened needs a human or a replay from the DLQ.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { DynamoDBIdempotencyStore } from 'effectively-once';
import { sharedDocumentClient } from './shared/aws.js';
import { numberFromEnv, requireEnv, type Env } from './shared/env.js';
import { lazyHandler } from './shared/lazy.js';
import { dynamoDBStoreFrom, type StoreDeps } from './shared/store.js';

/** One claim `staleClaims` returns. */
type StaleClaim = Awaited<ReturnType<DynamoDBIdempotencyStore['staleClaims']>>[number];

/** Dependencies of {@link createSweeperHandler}. */
export interface SweeperDeps extends Omit<StoreDeps, 'store'> {
  /** How long after its lease ended a claim counts as stale. Default 15 min. */
  readonly graceMs?: number;
  /** At most this many claims are read per run. Default 100. */
  readonly limit?: number;
  /** Where the log line and the metric line go. Default: raw lines on stdout. */
  readonly write?: (line: string) => void;
  /** CloudWatch namespace and `Service` dimension of the metric. */
  readonly metrics?: { readonly namespace: string; readonly service: string };
}

/** A stale claim as reported. */
export interface ReportedClaim extends StaleClaim {
  /** How long ago its lease ended, ms. */
  readonly overdueMs: number;
}

/** What one sweep found (also the handler's result). */
export interface SweepReport {
  readonly staleClaims: number;
  /** Claims whose lease ended before this (epoch ms) were counted. */
  readonly leaseEndedBefore: number;
  /** True when `limit` was reached: there may be more. */
  readonly truncated: boolean;
  /** Up to the 10 oldest, oldest first. */
  readonly oldest: readonly ReportedClaim[];
}

const DEFAULT_GRACE_MS = 15 * 60_000;
const DEFAULT_LIMIT = 100;
const REPORTED = 10;

// Raw stdout, not console.log: Lambda prefixes console lines with a timestamp
// and request id, and CloudWatch only extracts EMF from lines that are pure JSON.
const stdoutLine = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** The EMF document that publishes `StaleClaims` when written to a Lambda log. */
export function staleClaimsMetric(count: number, at: number, metrics: { namespace: string; service: string }): string {
  return JSON.stringify({
    _aws: {
      Timestamp: at,
      CloudWatchMetrics: [{ Namespace: metrics.namespace, Dimensions: [['Service']], Metrics: [{ Name: 'StaleClaims', Unit: 'Count' }] }],
    },
    Service: metrics.service,
    StaleClaims: count,
  });
}

/**
 * Builds the sweeper handler.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { ScheduledEvent } from 'aws-lambda';
 * import { lambdaContext } from 'effectively-once/testing';
 * import { createSweeperHandler } from './sweeper.js';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const sweep = createSweeperHandler({ client, tables: { idempotency: 'idem' }, graceMs: 60_000 });
 * const report = await sweep({} as ScheduledEvent, lambdaContext());
 * ```
 */
export function createSweeperHandler(deps: SweeperDeps) {
  const store = dynamoDBStoreFrom(deps);
  const graceMs = deps.graceMs ?? DEFAULT_GRACE_MS;
  const limit = deps.limit ?? DEFAULT_LIMIT;
  const write = deps.write ?? stdoutLine;
  const metrics = deps.metrics ?? { namespace: 'EffectivelyOnce', service: 'effectively-once' };

  return async (_event: ScheduledEvent, _context: Context): Promise<SweepReport> => {
    const now = deps.clock?.now() ?? Date.now();
    const leaseEndedBefore = now - graceMs;
    const claims = await store.staleClaims({ leaseEndedBefore, limit });
    const oldest = [...claims]
      .sort((a, b) => a.leaseUntil - b.leaseUntil)
      .slice(0, REPORTED)
      .map((claim) => ({ ...claim, overdueMs: now - claim.leaseUntil }));
    const report: SweepReport = { staleClaims: claims.length, leaseEndedBefore, truncated: claims.length >= limit, oldest };
    write(JSON.stringify({ level: claims.length > 0 ? 'WARN' : 'INFO', message: 'stale-claims', graceMs, ...report }));
    write(staleClaimsMetric(claims.length, now, metrics));
    return report;
  };
}

/**
 * Dependencies from the Lambda environment: `IDEMPOTENCY_TABLE`, optional
 * `STALE_GRACE_MS`, `METRICS_NAMESPACE`, `METRICS_SERVICE`.
 */
export function sweeperDepsFromEnv(env: Env = process.env): SweeperDeps {
  return {
    client: sharedDocumentClient(env),
    tables: { idempotency: requireEnv('IDEMPOTENCY_TABLE', env) },
    graceMs: numberFromEnv('STALE_GRACE_MS', DEFAULT_GRACE_MS, env),
    metrics: {
      namespace: env['METRICS_NAMESPACE'] ?? 'EffectivelyOnce',
      service: env['METRICS_SERVICE'] ?? 'effectively-once',
    },
  };
}

/** The Lambda entry point (`functions/sweeper.handler` in serverless.yml). */
export const handler = lazyHandler(() => createSweeperHandler(sweeperDepsFromEnv()));
