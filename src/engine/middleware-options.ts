/**
 * Options shared by the middlewares of every source, their defaults (one
 * object) and their rules.
 */
import type { AutoMargin, LeaseOptions, LeasePolicy } from './lease.js';
import {
  hasMethods,
  is,
  isMsIn,
  isPlainObject,
  MAX_TIMER_MS,
  resolveOptions,
  type OptionRule,
  type Resolved,
  type RulesOf,
} from './options.js';
import { isRenewableStore, isTransactionalStore, type IdempotencyStore } from '../stores/types.js';
import { heartbeatOn } from './heartbeat.js';
import { jsonLineLogger, type BatchLogger } from '../observe/log.js';
import { consumerDimensionProblem, metricsRule, type MetricsOption } from '../observe/metrics.js';
import type { Extractors } from './prepare.js';
import type { ConflictPolicy } from '../transaction/commit-step.js';
import type { CommitMode } from '../transaction/group-commit/queue.js';
import type { ProbeMode } from '../transaction/group-commit/duplicate-probe.js';

/** Idempotency strategy: a claim record around the handler, or one transaction with its writes. */
export type Strategy = 'claim' | 'transaction';

/** Options both middlewares take. */
export interface CommonIdempotencyOptions {
  /** Where idempotency records live. `strategy: 'transaction'` needs a `TransactionalIdempotencyStore` (one with `commit`). */
  readonly store: IdempotencyStore;
  /** Names the consumer in record ids (`consumer#key`). Default: the Lambda function name. */
  readonly consumer?: string;
  /** Default 'claim'. 'transaction' commits the handler's `tx` writes with the idempotency record. */
  readonly strategy?: Strategy;
  /** Keep the handler's result on the record (replayed to duplicates). */
  readonly storeResult?: boolean;
  /**
   * Lease bounds (ms). Default: margin 5 s, floor 10 s, cap 15 min.
   * `heartbeat: true | { everyMs }` renews the claim while the handler runs
   * (claim strategy, a store with `renew`); the handler's `signal` aborts
   * when a renewal finds the claim lost.
   */
  readonly lease?: LeaseOptions;
  /** Receives the structured line per batch/event; `false` for none. Default: JSON on stdout. */
  readonly logger?: BatchLogger | false;
  /**
   * One CloudWatch EMF document per batch/event (`{ namespace, dimensions, emit }`),
   * or a Powertools `Metrics` instance to add the counts to; `false` for none.
   * Default: EMF on stdout, namespace `EffectivelyOnce`. See docs/metrics.md.
   */
  readonly metrics?: MetricsOption;
}

/** Defaults shared by both middlewares. */
export const commonDefaults = {
  strategy: 'claim' as Strategy,
  lease: { marginMs: 5_000, floorMs: 10_000, capMs: 15 * 60_000 } satisfies LeasePolicy,
  logger: jsonLineLogger as BatchLogger | false,
  metrics: {} as MetricsOption,
};

/** Defaults shared by the batch middlewares (SQS, Kinesis, DynamoDB Streams), on top of {@link commonDefaults}. */
export const batchDefaults = {
  ...commonDefaults,
  storeResult: false,
  onConflict: 'fail' as ConflictPolicy,
  /** Used when `safetyMarginMs` is not given. */
  autoSafetyMargin: { maxMs: 5_000, fraction: 0.2 } satisfies AutoMargin,
};

const leaseRule = {
  partial: true,
  expected: `an object with marginMs, floorMs and capMs (non-negative numbers of ms, at most ${MAX_TIMER_MS}; floor <= cap) and heartbeat (a boolean or { everyMs: a positive number of ms })`,
  check: (v: unknown) => {
    if (!isPlainObject(v)) return false;
    const { heartbeat, ...bounds } = v;
    if (heartbeat !== undefined && !isHeartbeat(heartbeat)) return false;
    const entries = Object.entries(bounds).filter(([, n]) => n !== undefined);
    const known = ['marginMs', 'floorMs', 'capMs'];
    // Bounded like a timer delay: a lease is at most what one invocation (15 min) needs, and the wait polls within it.
    if (!entries.every(([k, n]) => known.includes(k) && isMsIn(n, false, MAX_TIMER_MS))) return false;
    const merged = { ...commonDefaults.lease, ...(Object.fromEntries(entries) as Partial<LeasePolicy>) };
    return merged.floorMs <= merged.capMs && merged.capMs > 0;
  },
} satisfies OptionRule;

/** A `heartbeat` setting: a boolean or `{ everyMs }` (the lease option of the middlewares and of `idempotent`). */
export function isHeartbeat(v: unknown): boolean {
  if (typeof v === 'boolean') return true;
  if (!isPlainObject(v)) return false;
  return Object.keys(v).every((k) => k === 'everyMs') && isMsIn(v['everyMs'], true, MAX_TIMER_MS);
}

// Each rule a const of its own, and the rule objects below plain literals of
// them: a bundler then drops the rules a claim-only bundle never reads.
const storeRule = { ...hasMethods('an IdempotencyStore', 'recordId', 'claim', 'complete', 'release', 'get'), required: true };
const consumerRule = {
  expected: 'a non-empty string without "#" (it separates consumer and key in record ids)',
  check: (v: unknown) => typeof v === 'string' && v.length > 0 && !v.includes('#'),
};
const strategyRule = is.oneOf('claim', 'transaction');
const booleanRule = is.boolean;
const loggerRule = { expected: 'a function or false', check: (v: unknown) => typeof v === 'function' || v === false };

/** Rules for the common options every entry serves (the claim-only entry too, which checks `strategy` and `metrics` its own way). */
export const claimCommonRules = {
  store: storeRule,
  consumer: consumerRule,
  storeResult: booleanRule,
  lease: leaseRule,
  logger: loggerRule,
} satisfies RulesOf<Omit<CommonIdempotencyOptions, 'strategy' | 'metrics'>>;

/** Rules for the common options. */
export const commonRules = {
  store: storeRule,
  consumer: consumerRule,
  strategy: strategyRule,
  storeResult: booleanRule,
  lease: leaseRule,
  logger: loggerRule,
  metrics: metricsRule,
} satisfies RulesOf<CommonIdempotencyOptions>;

/** Rules for what every source's options say about a record: its key and its payload. */
export const recordRules = {
  key: { ...is.fn, required: true },
  payload: { expected: 'a function or false', check: (v: unknown) => typeof v === 'function' || v === false },
} as const satisfies Record<'key' | 'payload', OptionRule>;

/** Rules of the batch middlewares' own options (SQS, Kinesis, DynamoDB Streams): what a batch adds to {@link commonRules}. */
export const batchRules = {
  onConflict: is.oneOf('fail', 'acknowledge'),
  safetyMarginMs: is.timerMs,
} as const satisfies Record<'onConflict' | 'safetyMarginMs', OptionRule>;

/**
 * The middlewares' one resolve step: the rules (typed against the options
 * interface), the defaults laid under the options once, then the rule that
 * spans two options (a transaction needs a store with `commit`).
 */
export function resolveMiddlewareOptions<T extends CommonIdempotencyOptions, D extends object>(
  owner: string,
  options: T,
  rules: RulesOf<T>,
  defaults: D,
): Resolved<T, D> {
  const resolved = resolveOptions(owner, options, rules, defaults);
  const { store, strategy } = options;
  if (heartbeatOn(options.lease?.heartbeat)) {
    // A transaction has no claim to renew: its commit is conditional on the key being free when it lands.
    if (strategy === 'transaction')
      throw new TypeError(`${owner}: option "lease" has heartbeat, which needs strategy "claim" (a transaction holds no claim to renew).`);
    requireRenewableStore(owner, store);
  }
  const dimension = consumerDimensionProblem(options.metrics ?? commonDefaults.metrics, options.consumer);
  if (dimension !== undefined) {
    throw new TypeError(
      `${owner}: option "consumer" is the Consumer dimension of the EMF metrics, but ${dimension} (CloudWatch would drop every document); use another name, or set metrics: false.`,
    );
  }
  if (strategy === 'transaction' && !isTransactionalStore(store)) {
    throw new TypeError(
      `${owner}: option "store" must be a TransactionalIdempotencyStore (with commit) for strategy "transaction"; this store supports only strategy "claim".`,
    );
  }
  return resolved;
}

/** The consumer name: the option, else the function name; a clear error when neither exists. */
export function consumerName(owner: string, option: string | undefined, functionName: string | undefined): string {
  const name = option ?? functionName;
  if (typeof name !== 'string' || name.length === 0) {
    throw new TypeError(`${owner}: no consumer name: set the "consumer" option (the Lambda context has no functionName).`);
  }
  // Function names cannot hold "#"; the option is checked at build time. Keep ids unambiguous anyway.
  return name.replaceAll('#', '_');
}

/** The resolved options every lifecycle (batch or single event) runs with (see `resolveMiddlewareOptions`). */
export interface LifecycleConfig<TInput> extends Extractors<TInput> {
  readonly store: IdempotencyStore;
  readonly consumer?: string;
  readonly strategy: Strategy;
  readonly storeResult: boolean;
  readonly lease: LeasePolicy & Pick<LeaseOptions, 'heartbeat'>;
  readonly logger: BatchLogger | false;
  readonly metrics: MetricsOption;
  readonly onConflict: ConflictPolicy;
  /** Absent: `autoSafetyMargin` of the time left. */
  readonly safetyMarginMs?: number;
  readonly autoSafetyMargin: AutoMargin;
  /** Transaction strategy, batch sources: group commit or one commit per record (default 'group'). */
  readonly commit?: CommitMode;
  /** Group commit: when the batch's idempotency records are read before the commit (default 'auto'). */
  readonly probeDuplicates?: ProbeMode;
}

/**
 * A lease heartbeat renews claims: `store` must have `renew`, else a
 * `TypeError` naming the `lease` option (the middlewares and `idempotent()`).
 *
 * @example
 * ```ts
 * import { requireRenewableStore } from './middleware-options.js';
 * import { MemoryIdempotencyStore } from '../stores/memory.js';
 * requireRenewableStore('idempotent', new MemoryIdempotencyStore());
 * ```
 */
export function requireRenewableStore(owner: string, store: IdempotencyStore): void {
  if (!isRenewableStore(store)) throw new TypeError(`${owner}: option "lease" has heartbeat, but the store has no renew method.`);
}
