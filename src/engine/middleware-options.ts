/**
 * Options shared by the middlewares of every source, their defaults (one
 * object) and their rules.
 */
import type { AutoMargin, HeartbeatSetting, LeaseOptions, LeasePolicy } from './lease.js';
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
import { isRenewableStore, isTransactionalStore, type IdempotencyStore } from './store.js';
import { heartbeatOn, isHeartbeat } from './heartbeat.js';
import { jsonLineLogger, type BatchLogger } from '../observe/log.js';
import { consumerDimensionProblem, metricsRule, type MetricsOption } from '../observe/metrics.js';
import type { Extractors } from './prepare.js';
import type { ConflictPolicy } from '../strategies/transaction/commit-step.js';
import type { CommitMode } from '../strategies/transaction/group-commit/queue.js';
import type { ProbeMode } from '../strategies/transaction/group-commit/duplicate-probe.js';
import type { ClaimStrategy, PipelinedClaimStrategy } from '../strategies/claim/claim.js';
import type { SqsTransactionStrategy, TransactionStrategy } from '../strategies/transaction/transaction.js';

export { isHeartbeat } from './heartbeat.js';

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
   * Default `claim()`. `claim({ heartbeat })` renews the claim while the
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
   * One CloudWatch EMF document per batch/event (`{ namespace, dimensions, emit }`),
   * or a Powertools `Metrics` instance to add the counts to; `false` for none.
   * Default: EMF on stdout, namespace `EffectivelyOnce`. See docs/metrics.md.
   */
  readonly metrics?: MetricsOption;
}

/**
 * Defaults of `transaction()`'s settings, in one place. Here, not beside
 * `transaction()`: the middlewares' defaults read them, and a claim-only
 * bundle then carries no file of the transaction strategy.
 */
export const transactionDefaults = {
  onConflict: 'fail' as ConflictPolicy,
  commit: 'group' as CommitMode,
  probeDuplicates: 'auto' as ProbeMode,
};

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
  onConflict: transactionDefaults.onConflict,
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

/** Each setting a strategy object may carry, by its `kind`, and what it must be. */
const strategySettings: Readonly<Record<string, Readonly<Record<string, (v: unknown) => boolean>>>> = {
  claim: { pipelined: (v) => typeof v === 'boolean', heartbeat: isHeartbeat },
  transaction: {
    onConflict: (v) => v === 'fail' || v === 'acknowledge',
    commit: (v) => v === 'group' || v === 'record',
    probeDuplicates: (v) => v === 'auto' || v === 'always' || v === 'never',
  },
};

/** An object shaped like what `claim()` / `transaction()` return (JavaScript callers may write one by hand). */
function isStrategyOption(v: unknown): boolean {
  if (!isPlainObject(v) || typeof v['kind'] !== 'string') return false;
  const settings = strategySettings[v['kind']];
  if (settings === undefined) return false;
  // Functions are the strategy's own code, not settings.
  return Object.entries(v).every(
    ([name, value]) => name === 'kind' || typeof value === 'function' || value === undefined || settings[name]?.(value) === true,
  );
}

// Each rule a const of its own, and the rule objects below plain literals of
// them: a bundler then drops the rules a claim-only bundle never reads.
const storeRule = { ...hasMethods('an IdempotencyStore', 'recordId', 'claim', 'complete', 'release', 'get'), required: true };
const consumerRule = {
  expected: 'a non-empty string without "#" (it separates consumer and key in record ids)',
  check: (v: unknown) => typeof v === 'string' && v.length > 0 && !v.includes('#'),
};
const strategyRule = { expected: 'what claim() or transaction() returns', check: isStrategyOption };
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
  safetyMarginMs: is.timerMs,
} as const satisfies Record<'safetyMarginMs', OptionRule>;

/** The options that moved into a strategy object, and what to write instead. */
const MOVED: Readonly<Record<string, string>> = {
  commit: 'strategy: transaction({ commit })',
  probeDuplicates: 'strategy: transaction({ probeDuplicates })',
  onConflict: 'strategy: transaction({ onConflict })',
  claims: 'strategy: claim({ pipelined })',
};

/**
 * A `TypeError` for an option that moved into `claim()` / `transaction()`,
 * saying where it went: the types refuse them, a JavaScript caller learns
 * it here rather than from "unknown option". `where` ends the sentence
 * (the claim-only entry names the entry that serves them). Returns the
 * options without the moved names, so one given as `undefined` counts as
 * not given, as any option does.
 *
 * @example
 * ```ts
 * import { withoutMovedOptions } from './middleware-options.js';
 * try {
 *   withoutMovedOptions('sqsIdempotency', { commit: 'record' });
 * } catch (err) {
 *   console.log((err as TypeError).message); // sqsIdempotency: option "commit" moved: use strategy: transaction({ commit }).
 * }
 * ```
 */
export function withoutMovedOptions<T>(owner: string, options: T, where = ''): T {
  if (!isPlainObject(options)) return options; // checkOptions names it
  refuseStrategyName(owner, options['strategy']);
  for (const [name, instead] of Object.entries(MOVED)) {
    if (options[name] !== undefined) throw new TypeError(`${owner}: option "${name}" moved: use ${instead}${where}.`);
  }
  const lease = options['lease'];
  if (isPlainObject(lease) && lease['heartbeat'] !== undefined) {
    throw new TypeError(`${owner}: option "lease.heartbeat" moved: use strategy: claim({ heartbeat })${where}.`);
  }
  // Every moved name left is undefined; the same options otherwise.
  return Object.fromEntries(Object.entries(options).filter(([name]) => !Object.hasOwn(MOVED, name))) as T;
}

/**
 * A `TypeError` for the strategy names the `strategy` option once took as
 * shorthand (`'claim'`, `'transaction'`), saying what to write instead: the
 * name could only be served by a middleware that imports every strategy's
 * steps, so a claim-only handler would bundle the transaction code. `where`
 * ends the sentence for `'transaction'` (the claim-only entry names the
 * entry that serves it).
 *
 * @example
 * ```ts
 * import { refuseStrategyName } from './middleware-options.js';
 * try {
 *   refuseStrategyName('sqsIdempotency', 'transaction');
 * } catch (err) {
 *   console.log((err as TypeError).message); // sqsIdempotency: option "strategy" no longer takes the name "transaction": write strategy: transaction(), imported from 'effectively-once'.
 * }
 * ```
 */
export function refuseStrategyName(owner: string, strategy: unknown, where = ''): void {
  if (strategy === 'transaction') {
    throw new TypeError(
      `${owner}: option "strategy" no longer takes the name "transaction": write strategy: transaction(), imported from 'effectively-once'${where}.`,
    );
  }
  if (strategy === 'claim') {
    throw new TypeError(
      `${owner}: option "strategy" no longer takes the name "claim": write strategy: claim(), imported from 'effectively-once', or leave it out (claim() is the default).`,
    );
  }
}

/**
 * Which strategy settings a source can use beyond the common ones
 * (`claim({ heartbeat })`, `transaction({ onConflict })`). Pipelined claims
 * and a transaction's commit settings shape how an SQS batch is claimed and
 * committed; a stream's shard order and a single event have no use for them.
 */
export interface StrategyScope {
  /** `claim({ pipelined: true })`. */
  readonly pipelined: boolean;
  /** `transaction({ commit, probeDuplicates })`. */
  readonly commitSettings: boolean;
}

/** The scope of every source but SQS. */
const COMMON_SCOPE: StrategyScope = { pipelined: false, commitSettings: false };

/** The `strategy` option as the lifecycle reads it: flat fields, each absent where the source's default holds. */
interface StrategyFields {
  readonly strategy: Strategy;
  readonly onConflict?: ConflictPolicy;
  readonly commit?: CommitMode;
  readonly probeDuplicates?: ProbeMode;
  readonly claims?: 'batch' | 'pipelined';
  readonly heartbeat?: HeartbeatSetting;
}

/** The lifecycle's fields from a `strategy` option its rule accepted; a `TypeError` for a setting the source cannot use. */
function strategyFields(owner: string, option: SqsStrategyOption | undefined, scope: StrategyScope): StrategyFields {
  if (option === undefined) return { strategy: 'claim' };
  if (option.kind === 'claim') {
    const { pipelined, heartbeat = false } = option;
    if (pipelined === true && !scope.pipelined) {
      throw new TypeError(`${owner}: option "strategy" is claim({ pipelined: true }), which only sqsIdempotency takes.`);
    }
    if (pipelined === true && heartbeatOn(heartbeat)) {
      throw new TypeError(`${owner}: option "strategy" is a claim pipelined and with a heartbeat; choose one.`);
    }
    const claims = scope.pipelined ? { claims: pipelined === true ? ('pipelined' as const) : ('batch' as const) } : {};
    return { strategy: 'claim', ...claims, ...(heartbeatOn(heartbeat) ? { heartbeat } : {}) };
  }
  const { onConflict, commit, probeDuplicates } = option;
  if ((commit !== undefined || probeDuplicates !== undefined) && !scope.commitSettings) {
    throw new TypeError(
      `${owner}: option "strategy" is transaction({ commit, probeDuplicates }), which only sqsIdempotency takes; use transaction({ onConflict }).`,
    );
  }
  return {
    strategy: 'transaction',
    ...(onConflict === undefined ? {} : { onConflict }),
    ...(commit === undefined ? {} : { commit }),
    ...(probeDuplicates === undefined ? {} : { probeDuplicates }),
  };
}

/**
 * The middlewares' one resolve step: the moved options named, the rules
 * (typed against the options interface), the defaults laid under the
 * options once, the `strategy` option turned into the flat fields the
 * lifecycle reads (`strategy` its name, `onConflict`, `commit`,
 * `probeDuplicates`, `claims`, `lease.heartbeat`), then the rules that span
 * two options (a heartbeat or a transaction needs a store that can serve it).
 * `scope`: the strategy settings the source can use besides the common ones.
 */
export function resolveMiddlewareOptions<T extends CommonIdempotencyOptions<SqsStrategyOption>, D extends object>(
  owner: string,
  options: T,
  rules: RulesOf<T>,
  defaults: D,
  scope: StrategyScope = COMMON_SCOPE,
): Resolved<T, D> {
  const given = withoutMovedOptions(owner, options);
  const checked = resolveOptions(owner, given, rules, defaults);
  const { store } = options;
  const { heartbeat, ...fields } = strategyFields(owner, given.strategy, scope);
  // The defaults carry every field the strategy sets (strategy, onConflict, lease; commit, probeDuplicates, claims for SQS).
  const lease = (checked as { readonly lease?: object }).lease;
  const resolved = { ...checked, ...fields, ...(heartbeat === undefined ? {} : { lease: { ...lease, heartbeat } }) } as Resolved<T, D>;
  if (heartbeat !== undefined) requireRenewableStore(owner, store, 'strategy');
  const dimension = consumerDimensionProblem(options.metrics ?? commonDefaults.metrics, options.consumer);
  if (dimension !== undefined) {
    throw new TypeError(
      `${owner}: option "consumer" is the Consumer dimension of the EMF metrics, but ${dimension} (CloudWatch would drop every document); use another name, or set metrics: false.`,
    );
  }
  if (fields.strategy === 'transaction' && !isTransactionalStore(store)) {
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
  /** The bounds, and `claim({ heartbeat })`'s setting when it is on. */
  readonly lease: LeasePolicy & { readonly heartbeat?: HeartbeatSetting };
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
 * `TypeError` naming the option that asked for it (`strategy` of the
 * middlewares, `lease` of `idempotent()`).
 *
 * @example
 * ```ts
 * import { requireRenewableStore } from './middleware-options.js';
 * import { MemoryIdempotencyStore } from '../stores/memory.js';
 * requireRenewableStore('idempotent', new MemoryIdempotencyStore());
 * ```
 */
export function requireRenewableStore(owner: string, store: IdempotencyStore, option: 'lease' | 'strategy' = 'lease'): void {
  if (!isRenewableStore(store)) throw new TypeError(`${owner}: option "${option}" has heartbeat, but the store has no renew method.`);
}
