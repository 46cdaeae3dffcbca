/**
 * Options shared by the middlewares of every source, their defaults (one
 * object) and their rules.
 */
import type { AutoMargin, LeaseOptions, LeasePolicy } from '../engine/lease.js';
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
} from '../engine/options.js';
import type { IdempotencyStore } from '../engine/store.js';
import type { PreviousRecords } from '../engine/previous.js';
import { jsonLineLogger, type BatchLogger } from '../observe/log.js';
import { metricsPluginRule, type MetricsPlugin } from '../observe/metrics-plugin.js';
import { tracingPluginRule, type TracingPlugin } from '../engine/tracing.js';
import type { Extractors } from '../engine/prepare.js';
import type { ClaimStrategy, PipelinedClaimStrategy } from '../strategies/claim/claim.js';
import type { SqsTransactionStrategy, TransactionStrategy } from '../strategies/transaction/transaction.js';
import { isStrategy, type StrategyUse } from '../strategies/types.js';

export { isHeartbeat } from '../engine/heartbeat.js';

/** Idempotency strategy by name: a claim record around the handler, or one transaction with its writes. */
export type Strategy = 'claim' | 'transaction';

/**
 * The `strategy` option every middleware takes: what `claim()` or
 * `transaction()` returns. Not the strategy's name: the object carries the
 * strategy's steps, so a handler bundles only the strategy it names.
 */
export type StrategyOption = ClaimStrategy | TransactionStrategy;

/** The `strategy` option of `sqsIdempotency`: also pipelined claims, and a transaction's batch commit settings. */
export type SqsStrategyOption = StrategyOption | PipelinedClaimStrategy | SqsTransactionStrategy;

/** Options every middleware takes; `TStrategy` is what its `strategy` option accepts. */
export interface CommonIdempotencyOptions<TStrategy extends SqsStrategyOption = StrategyOption> {
  /** Where idempotency records live. The transaction strategy needs a `TransactionalIdempotencyStore` (one with `commit`). */
  readonly store: IdempotencyStore;
  /** Names the consumer in record ids (`consumer#key`). Default: the Lambda function name. */
  readonly consumer?: string;
  /**
   * Default `claim()` (`sqsIdempotency`: its claims batched below 512 MB
   * of memory, pipelined from 512 MB up, see `claim({ pipelined })`).
   * `claim({ heartbeat })` renews the claim while the
   * handler runs; `transaction({ onConflict })` commits the handler's `tx`
   * writes with the idempotency record.
   */
  readonly strategy?: TStrategy;
  /** Keep the handler's result on the record (replayed to duplicates). */
  readonly storeResult?: boolean;
  /** Lease bounds (ms). Default: margin 5 s, floor 10 s, cap 15 min. */
  readonly lease?: LeaseOptions;
  /** Receives the structured line per batch/event; `false` for none. Default: JSON on stdout. */
  readonly logger?: BatchLogger | false;
  /**
   * Metrics per batch/event: `emfMetrics({ namespace?, dimensions? })` (one
   * CloudWatch EMF document on stdout) or `powertoolsMetrics(metrics)`.
   * Default: none. See docs/metrics.md.
   */
  readonly metrics?: MetricsPlugin;
  /**
   * OpenTelemetry spans per batch (or event), per record, and per claim,
   * effect and completion: `openTelemetry({ tracer? })` from
   * `effectively-once/tracing`. Default: none. See docs/observability.md.
   */
  readonly tracing?: TracingPlugin;
}

/** Defaults shared by both middlewares. */
export const commonDefaults = {
  lease: { marginMs: 5_000, floorMs: 10_000, capMs: 15 * 60_000 } satisfies LeasePolicy,
  logger: jsonLineLogger as BatchLogger | false,
};

/** Defaults shared by the batch middlewares (SQS, Kinesis, DynamoDB Streams), on top of {@link commonDefaults}. */
export const batchDefaults = {
  ...commonDefaults,
  storeResult: false,
  /** Used when `safetyMarginMs` is not given. */
  autoSafetyMargin: { maxMs: 5_000, fraction: 0.2 } satisfies AutoMargin,
};

/**
 * The `lease` rule, one shape for the middlewares and `idempotent()`: bounds
 * in ms (`marginMs`, `floorMs`, `capMs`), each at most a timer delay (a lease
 * is at most what one invocation, 15 min, needs, and the wait polls within
 * it), merged over `defaults`, floor at most cap. `positive` must come out
 * above 0: the cap for the middlewares, the floor for `idempotent()` (there
 * the floor is the lease itself when no Lambda context is given).
 */
export function leaseBoundsRule(defaults: LeasePolicy, positive: 'capMs' | 'floorMs', expected: string): OptionRule {
  const known = ['marginMs', 'floorMs', 'capMs'];
  return {
    partial: true,
    expected,
    check: (v: unknown) => {
      if (!isPlainObject(v)) return false;
      const entries = Object.entries(v).filter(([, n]) => n !== undefined);
      if (!entries.every(([k, n]) => known.includes(k) && isMsIn(n, false, MAX_TIMER_MS))) return false;
      const merged = { ...defaults, ...(Object.fromEntries(entries) as Partial<LeasePolicy>) };
      return merged.floorMs <= merged.capMs && merged[positive] > 0;
    },
  };
}

// Pure: a bundle that never reads the rule drops the call.
const leaseRule = /* @__PURE__ */ leaseBoundsRule(
  commonDefaults.lease,
  'capMs',
  `an object with marginMs, floorMs and capMs (non-negative numbers of ms, at most ${MAX_TIMER_MS}; floor <= cap)`,
);

// Each rule a const of its own, and the rule objects below plain literals of
// them: a bundler then drops the rules a claim-only bundle never reads.
const storeRule = { ...hasMethods('an IdempotencyStore', 'recordId', 'claim', 'complete', 'release', 'get'), required: true };
const consumerRule = {
  expected: 'a non-empty string without "#" (it separates consumer and key in record ids)',
  check: (v: unknown) => typeof v === 'string' && v.length > 0 && !v.includes('#'),
};
const strategyRule = { expected: 'what claim() or transaction() returns', check: isStrategy };
const booleanRule = is.boolean;
/** `logger` and `payload`: a function, or `false` for none. */
const functionOrFalse = { expected: 'a function or false', check: (v: unknown) => typeof v === 'function' || v === false };

/** Rules for the common options. */
export const commonRules = {
  store: storeRule,
  consumer: consumerRule,
  strategy: strategyRule,
  storeResult: booleanRule,
  lease: leaseRule,
  logger: functionOrFalse,
  metrics: metricsPluginRule,
  tracing: tracingPluginRule,
} satisfies RulesOf<CommonIdempotencyOptions>;

/** Rules for what every source's options say about a record: its key and its payload. */
export const recordRules = {
  key: { ...is.fn, required: true },
  payload: functionOrFalse,
} as const satisfies Record<'key' | 'payload', OptionRule>;

/** The `previous` option of the SQS and EventBridge middlewares: what `powertoolsRecords()` returns. */
export const previousRule = hasMethods('what powertoolsRecords() returns (effectively-once/powertools)', 'decide');

/** Rules of the batch middlewares' own options (SQS, Kinesis, DynamoDB Streams): what a batch adds to {@link commonRules}. */
export const batchRules = {
  safetyMarginMs: is.timerMs,
} as const satisfies Record<'safetyMarginMs', OptionRule>;

/** What a source's middleware can serve of a strategy beyond what every source can (see {@link StrategyUse}). */
type StrategyScope = Pick<StrategyUse, 'pipelined' | 'commitSettings'>;

/** The scope of every source but SQS. */
const COMMON_SCOPE: StrategyScope = { pipelined: false, commitSettings: false };

/**
 * The middlewares' one resolve step: the rules (typed against the options
 * interface), the defaults laid under the options once, then the rules that
 * span two options: the strategy checks it can be served here (`scope`: the
 * strategy settings the source can use besides the common ones; its store),
 * and the consumer name must suit the metrics.
 */
export function resolveMiddlewareOptions<T extends CommonIdempotencyOptions<SqsStrategyOption>, D extends object>(
  owner: string,
  options: T,
  rules: RulesOf<T>,
  defaults: D,
  scope: StrategyScope = COMMON_SCOPE,
): Resolved<T, D> {
  const resolved = resolveOptions(owner, options, rules, defaults);
  const { store, strategy } = options;
  strategy?.check({ owner, store, ...scope });
  options.metrics?.checkConsumer(owner, options.consumer);
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
  readonly storeResult: boolean;
  readonly lease: LeasePolicy;
  readonly logger: BatchLogger | false;
  readonly metrics?: MetricsPlugin | undefined;
  readonly tracing?: TracingPlugin | undefined;
  /** Absent: `autoSafetyMargin` of the time left. */
  readonly safetyMarginMs?: number;
  readonly autoSafetyMargin: AutoMargin;
  /** A cutover from another library: its records, consulted before a record runs (engine/previous.ts). */
  readonly previous?: PreviousRecords<TInput> | undefined;
}
