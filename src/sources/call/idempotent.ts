import { claimAndDecide, type ClaimDecision } from '../../engine/claim-decide.js';
import { completeClaim, releaseHeld, type HeldClaim } from '../../engine/finish.js';
import type { BusinessKey } from '../../engine/keys.js';
import { leaseDuration, type LeaseOptions, type LeasePolicy } from '../../engine/lease.js';
import { is, isMsIn, isPlainObject, MAX_RETENTION_MS, MAX_TIMER_MS, resolveOptions, type RulesOf } from '../../engine/options.js';
import { replayCopy, type IdempotencyRecord } from '../../engine/record.js';
import { heartbeatPlan, keepLease, type LeaseKeeper } from '../../engine/heartbeat.js';
import { ownerWait, waitRule, type WaitOptions, type WaitPolicy } from '../../engine/wait.js';
import { commonRules, leaseBoundsRule, recordRules } from '../../batch/options.js';
import { isStrategy } from '../../strategies/types.js';
import type { ClaimStrategy } from '../../strategies/claim/claim.js';
import { prepare, type Extractors } from '../../engine/prepare.js';
import { remainingTime } from '../../engine/time.js';
import { durableExecutionOf, isDurableContext, lambdaContextOf } from '../../engine/durable.js';
import type { IdempotencyStore } from '../../engine/store.js';
import { errorParts } from '../../engine/errors.js';
import { resultNotStoredWarning, safely } from '../../observe/log.js';

/** Options of {@link idempotent}: `TArgs` are the wrapped function's parameters. */
export interface IdempotentOptions<TArgs extends readonly unknown[]> {
  /** Where idempotency records live (any `IdempotencyStore`). */
  readonly store: IdempotencyStore;
  /** Names the caller in record ids (`consumer#key`): required, there is no Lambda function name to default to. */
  readonly consumer: string;
  /** The business key of a call, from its arguments. */
  readonly key: (...args: TArgs) => BusinessKey | undefined | null;
  /** What must not change under one key (a `PayloadMismatchError` when it does). Default: the arguments; `false`: no check. */
  readonly payload?: ((...args: TArgs) => unknown) | false;
  /** Keep the result for duplicate calls (default true). `false`: a duplicate call resolves `undefined`. */
  readonly storeResult?: boolean;
  /**
   * The claim's lease bounds, ms, the middlewares' shape. With a Lambda
   * context among the arguments: its remaining time + `marginMs`, at least
   * `floorMs`, at most `capMs`. Without one: `floorMs` (a fixed lease).
   * Default: margin 5 s, floor 60 s, cap 15 min.
   */
  readonly lease?: LeaseOptions;
  /**
   * What `claim()` returns, as for the middlewares: `claim({ heartbeat })`
   * renews the claim while `fn` runs (`true`: every third of the lease;
   * `{ everyMs }`: a period of your own; the store needs `renew`). Default
   * `claim()`: no heartbeat. `idempotent()` has no transaction and no
   * pipelined claims.
   */
  readonly strategy?: ClaimStrategy;
  /** A call whose key another call holds: throw `IdempotencyInProgressError` (default) or wait for its result. */
  readonly inProgress?: 'throw' | 'wait';
  /** Bounds of that wait, ms (default: at most 30 s, polling from 100 ms doubling to 2 s). */
  readonly wait?: WaitOptions;
  /**
   * Lambda durable functions (a `DurableContext` among the arguments): the
   * lease of the execution's claim, ms. Default 366 days, the longest an
   * execution may run; it must outlast the execution, waits included (see
   * docs/durable-functions.md).
   */
  readonly durable?: { readonly leaseMs?: number };
}

const defaults = {
  storeResult: true,
  // Without a Lambda context the lease is floorMs: 60 s, the lease idempotent() always had.
  lease: { marginMs: 5_000, floorMs: 60_000, capMs: 15 * 60_000 } satisfies LeasePolicy,
  inProgress: 'throw' as 'throw' | 'wait',
  wait: { maxMs: 30_000, initialDelayMs: 100, maxDelayMs: 2_000 } satisfies WaitPolicy,
};

// Pure: a bundle that never reads the rule drops the call.
const leaseRule = /* @__PURE__ */ leaseBoundsRule(
  defaults.lease,
  'floorMs',
  `an object with marginMs, floorMs and capMs (numbers of ms, at most ${MAX_TIMER_MS}; floorMs above 0 and at most capMs; lease.ms is now lease.floorMs)`,
);

const rules = {
  store: commonRules.store,
  consumer: { ...commonRules.consumer, required: true },
  key: recordRules.key,
  payload: recordRules.payload,
  storeResult: is.boolean,
  lease: leaseRule,
  strategy: {
    expected: 'what claim() returns (idempotent() takes no transaction() and no pipelined claims)',
    check: (v: unknown) => isStrategy(v) && isPlainObject(v) && v['kind'] === 'claim' && v['pipelined'] === false,
  },
  inProgress: is.oneOf('throw', 'wait'),
  wait: waitRule,
  durable: {
    expected: `an object with leaseMs (a positive number of ms, at most ${MAX_RETENTION_MS})`,
    check: (v: unknown) =>
      isPlainObject(v) &&
      Object.keys(v).every((k) => k === 'leaseMs') &&
      (v['leaseMs'] === undefined || isMsIn(v['leaseMs'], true, MAX_RETENTION_MS)),
  },
} satisfies RulesOf<IdempotentOptions<unknown[]>>;

/** A Lambda context, by shape: it has `getRemainingTimeInMillis`. */
function isLambdaContext(value: unknown): value is { getRemainingTimeInMillis(): number } {
  return isPlainObject(value) && typeof value['getRemainingTimeInMillis'] === 'function';
}

/** The contexts among a call's arguments: a durable function's (it holds the Lambda one) or a plain Lambda context. */
function contextsIn(args: readonly unknown[], durableLeaseMs: number | undefined) {
  for (const arg of args) {
    const execution = durableExecutionOf(arg, durableLeaseMs);
    if (execution !== undefined) return { execution, lambda: lambdaContextOf(arg) };
  }
  const lambda = args.find(isLambdaContext);
  return { execution: undefined, lambda };
}

/** One JSON line at WARN (`idempotent` has no logger option) for a call completed without its result, never throwing. */
function warnResultNotStored(consumer: string, id: string, error: Error): void {
  const warnings = [resultNotStoredWarning(`record ${id}`, errorParts(error))];
  safely(
    () => console.warn(JSON.stringify({ level: 'WARN', message: 'effectively-once', source: 'idempotent', consumer, id, warnings })),
    'logger',
    'the warning was dropped',
  );
}

/** The default payload: the arguments, without the contexts (a request id or a durable context changes at every invocation). */
function argumentsPayload(...args: readonly unknown[]): unknown {
  return args.filter((arg) => !isLambdaContext(arg) && !isDurableContext(arg));
}

/**
 * Makes `fn` idempotent per business key, outside Middy: the returned
 * function has `fn`'s parameters (and passes its `this` on) and resolves
 * `fn`'s result. The first call for a key claims it (a conditional write),
 * runs `fn` and completes the claim with the result; later calls resolve a
 * copy of the stored result without running `fn`. With `storeResult` the
 * first call resolves that same JSON copy too (a `Date` is its ISO string, a
 * `Map` is `{}`), so no caller sees what only the first call would. If `fn` throws, the claim is released and the error
 * rethrown, so a retry runs it again. Two concurrent calls with one key run
 * `fn` once: the other throws `IdempotencyInProgressError` (or waits, with
 * `inProgress: 'wait'`). Every write after the claim is fenced on its owner
 * token: a call whose lease was taken over (it ran past its lease without
 * `strategy: claim({ heartbeat })`) rejects with `LeaseLostError` after `fn` ran (its effect
 * happened, possibly twice; its result is not stored). A result that cannot
 * be stored (too large, not JSON) completes the key without it: the call
 * resolves `undefined`, what a duplicate gets, and warns on `console.warn`.
 *
 * @throws TypeError when built with an unknown or wrong option (named).
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { DynamoDBClaimStore, idempotent } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
 *
 * async function refund(orderNo: string, cents: number): Promise<{ refundId: string }> {
 *   return { refundId: `r-${orderNo}-${cents}` }; // call the payment provider here
 * }
 * const refundOnce = idempotent(refund, { store, consumer: 'refunds', key: (orderNo) => orderNo });
 * const { refundId } = await refundOnce('order-42', 1_999); // a second call returns the same refundId
 * ```
 */
export function idempotent<TArgs extends unknown[], TResult>(
  fn: (...args: TArgs) => Promise<TResult> | TResult,
  options: IdempotentOptions<TArgs>,
): (...args: TArgs) => Promise<TResult> {
  if (typeof fn !== 'function') throw new TypeError('idempotent: the first argument must be a function.');
  if (isPlainObject(options) && Object.hasOwn(options, 'heartbeat')) {
    // Its place before 1.0: say where it lives now, not only that it is unknown.
    throw new TypeError('idempotent: unknown option "heartbeat": the heartbeat is strategy: claim({ heartbeat }), as for the middlewares.');
  }
  const config = resolveOptions('idempotent', options, rules, defaults);
  const { store, consumer, storeResult, lease, strategy, wait } = config;
  strategy?.check({ owner: 'idempotent', store, pipelined: false, commitSettings: false });
  const heartbeat = strategy?.heartbeat ?? false;
  const payload = config.payload ?? argumentsPayload;
  const extractors: Extractors<TArgs> = {
    key: (args) => config.key(...args),
    payload: payload === false ? false : (args) => payload(...args),
  };
  const wording = { differs: 'different arguments', holder: 'call' };

  /** The stored result of a duplicate, as an independent copy (`fn`'s type: it was `fn`'s result). */
  const replay = (record: IdempotencyRecord): TResult => (storeResult ? replayCopy(record.result) : undefined) as TResult;

  /**
   * The lease of one call: a durable execution's spans the execution; else
   * from the remaining time of a Lambda context among the arguments, else `floorMs`.
   */
  function leaseOf(contexts: ReturnType<typeof contextsIn>): number {
    if (contexts.execution !== undefined) return contexts.execution.leaseMs;
    return isLambdaContext(contexts.lambda) ? leaseDuration(remainingTime(contexts.lambda), lease) : lease.floorMs;
  }

  async function run(self: unknown, args: TArgs, claim: HeldClaim, leaseMs: number, sentAt: number | undefined): Promise<TResult> {
    // A durable execution's lease already spans the execution, and a suspended one has no process to renew it.
    const plan = sentAt === undefined ? undefined : heartbeatPlan(heartbeat, store, leaseMs, sentAt);
    const keeper: LeaseKeeper | undefined = plan === undefined ? undefined : keepLease(plan, claim);
    let result: TResult;
    try {
      result = await fn.apply(self, args);
    } catch (error) {
      await keeper?.stop();
      // A failed release is not fatal: the claim then ends with its lease.
      await releaseHeld(store, claim, error);
      throw error;
    }
    await keeper?.stop();
    const done = await completeClaim(store, claim, result, storeResult);
    switch (done.kind) {
      case 'completed':
        // What a duplicate would get: a caller never depends on what only the first call sees (a Date, a Map, a class).
        return storeResult ? (replayCopy(result) as TResult) : result;
      case 'completed-without-result':
        // Recorded done: a warning, never a rejection a retry would answer with a duplicate. No result, as for a duplicate.
        warnResultNotStored(consumer, claim.id, done.error);
        return undefined as TResult;
      default:
        // The effect happened; a lost lease or a refused write is the caller's to know.
        throw done.error;
    }
  }

  /** A decision that does not run `fn`: the stored result, or the error to reject with. */
  function answer(decision: Exclude<ClaimDecision, { readonly kind: 'claimed' }>): TResult {
    if (decision.kind === 'duplicate') return replay(decision.existing);
    throw decision.error;
  }

  return async function idempotentCall(this: unknown, ...args: TArgs): Promise<TResult> {
    const prepared = prepare(args, extractors);
    if (prepared instanceof Error) throw prepared;
    const contexts = contextsIn(args, config.durable?.leaseMs);
    const { execution } = contexts;
    const leaseMs = leaseOf(contexts);
    // A durable execution's claim names it, so its replays resume it (claim-decide.ts).
    const claim = { consumer, ...prepared, leaseMs, ...(execution === undefined ? {} : { messageId: execution.marker }) };
    const waitFor = config.inProgress === 'wait' ? ownerWait(Date.now() + wait.maxMs, wait) : undefined;
    const decision = await claimAndDecide({ store, claim, wording, wait: waitFor, execution });
    if (decision.kind !== 'claimed') return answer(decision);
    const sentAt = execution === undefined ? decision.sentAt : undefined;
    return run(this, args, { id: decision.id, key: prepared.key, token: decision.token }, leaseMs, sentAt);
  };
}
