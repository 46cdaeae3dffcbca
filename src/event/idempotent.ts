/**
 * `idempotent(fn, options)`: any async function made idempotent per business
 * key, outside Middy, with the lifecycle's claim, complete, release and
 * fencing: the first call claims the key, runs `fn` and completes (storing
 * its result for the duplicates); a failure releases the claim and rethrows;
 * a duplicate gets the stored result without running `fn`.
 */
import { systemClock } from '../engine/clock.js';
import { IdempotencyInProgressError, InvalidRecordError, LeaseLostError } from '../engine/errors.js';
import type { BusinessKey } from '../engine/keys.js';
import type { HeartbeatSetting } from '../engine/lease.js';
import { is, isMsIn, isPlainObject, MAX_TIMER_MS, resolveOptions, type RulesOf } from '../engine/options.js';
import { replayCopy, type IdempotencyRecord } from '../engine/record.js';
import { heartbeatOn, heartbeatPlan, keepLease, type LeaseKeeper } from '../engine/heartbeat.js';
import { waitForOwner, type WaitPolicy } from '../engine/wait.js';
import { commonRules, isHeartbeat, recordRules, requireRenewableStore } from '../engine/middleware-options.js';
import { payloadMismatch, prepare, type Extractors } from '../engine/prepare.js';
import { waitRule } from '../sources/eventbridge.js';
import type { ClaimResult, IdempotencyStore } from '../stores/types.js';

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
  /** The claim's lease (default 60 s) and an optional heartbeat renewing it while `fn` runs (the store needs `renew`). */
  readonly lease?: { readonly ms?: number; readonly heartbeat?: HeartbeatSetting };
  /** A call whose key another call holds: throw `IdempotencyInProgressError` (default) or wait for its result. */
  readonly inProgress?: 'throw' | 'wait';
  /** Bounds of that wait, ms (default: at most 30 s, polling from 100 ms doubling to 2 s). */
  readonly wait?: Partial<WaitPolicy>;
}

const defaults = {
  storeResult: true,
  lease: { ms: 60_000 } as { readonly ms: number; readonly heartbeat?: HeartbeatSetting },
  inProgress: 'throw' as 'throw' | 'wait',
  wait: { maxMs: 30_000, initialDelayMs: 100, maxDelayMs: 2_000 } satisfies WaitPolicy,
};

const rules = {
  store: commonRules.store,
  consumer: { ...commonRules.consumer, required: true },
  key: recordRules.key,
  payload: recordRules.payload,
  storeResult: is.boolean,
  lease: {
    partial: true,
    expected: `an object with ms (a positive number of ms, at most ${MAX_TIMER_MS}) and heartbeat (a boolean or { everyMs })`,
    check: (v: unknown) =>
      isPlainObject(v) &&
      Object.keys(v).every((k) => k === 'ms' || k === 'heartbeat') &&
      (v['ms'] === undefined || isMsIn(v['ms'], true, MAX_TIMER_MS)) &&
      (v['heartbeat'] === undefined || isHeartbeat(v['heartbeat'])),
  },
  inProgress: is.oneOf('throw', 'wait'),
  wait: waitRule,
} satisfies RulesOf<IdempotentOptions<unknown[]>>;

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
 * token: a call whose lease was taken over (it ran past `lease.ms` without
 * a heartbeat) rejects with `LeaseLostError` after `fn` ran (its effect
 * happened, possibly twice; its result is not stored).
 *
 * @throws TypeError when built with an unknown or wrong option (named).
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { DynamoDBIdempotencyStore, idempotent } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBIdempotencyStore({ client, tableName: 'idempotency' });
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
  const config = resolveOptions('idempotent', options, rules, defaults);
  const { store, consumer, storeResult, lease, wait } = config;
  if (heartbeatOn(lease.heartbeat)) requireRenewableStore('idempotent', store);
  const payload = config.payload ?? ((...args: TArgs) => args);
  const extractors: Extractors<TArgs> = {
    key: (args) => config.key(...args),
    payload: payload === false ? false : (args) => payload(...args),
  };

  /** The stored result of a duplicate, as an independent copy (`fn`'s type: it was `fn`'s result). */
  const replay = (record: IdempotencyRecord): TResult => (storeResult ? replayCopy(record.result) : undefined) as TResult;

  async function run(
    self: unknown,
    args: TArgs,
    claim: Extract<ClaimResult, { kind: 'claimed' }>,
    key: string,
    sentAt: number,
  ): Promise<TResult> {
    const { id, token } = claim;
    const plan = heartbeatPlan(lease.heartbeat, store, lease.ms, sentAt);
    const keeper: LeaseKeeper | undefined = plan === undefined ? undefined : keepLease(plan, { id, token, key });
    let result: TResult;
    try {
      result = await fn.apply(self, args);
    } catch (error) {
      await keeper?.stop();
      // A failed release is not fatal: the claim then ends with its lease.
      await store.release({ id, token, error }).catch(() => undefined);
      throw error;
    }
    await keeper?.stop();
    await complete(id, token, key, result);
    // What a duplicate would get: a caller never depends on what only the first call sees (a Date, a Map, a class).
    return storeResult ? (replayCopy(result) as TResult) : result;
  }

  async function complete(id: string, token: string, key: string, result: TResult): Promise<void> {
    let written: Awaited<ReturnType<IdempotencyStore['complete']>>;
    try {
      written = await store.complete({ id, token, result, storeResult });
    } catch (err) {
      if (!(err instanceof InvalidRecordError)) throw err;
      // The effect happened: record it without its result so it never runs again, and say why the result is not kept.
      written = await store.complete({ id, token, storeResult: false });
      if (written.kind === 'ok') throw err;
    }
    if (written.kind === 'lease-lost') {
      const existing = written.current === undefined ? {} : { existing: written.current };
      throw new LeaseLostError(`Lease on ${id} was taken over while the function ran; completion refused.`, { key, ...existing });
    }
  }

  return async function idempotentCall(this: unknown, ...args: TArgs): Promise<TResult> {
    const prepared = prepare(args, extractors);
    if (prepared instanceof Error) throw prepared;
    const { key, payloadHash } = prepared;
    const hash = payloadHash === undefined ? {} : { payloadHash };
    const waitUntil = Date.now() + wait.maxMs;
    for (;;) {
      const sentAt = Date.now();
      const claim = await store.claim({ consumer, key, leaseMs: lease.ms, ...hash });
      if (claim.kind === 'claimed') return run(this, args, claim, key, sentAt);
      const existing = claim.existing;
      const mismatch = payloadMismatch(
        payloadHash,
        existing.payloadHash,
        `Key already recorded under ${claim.id} with different arguments.`,
        {
          key,
          existing,
        },
      );
      if (mismatch !== undefined) throw mismatch;
      if (claim.kind === 'completed') return replay(existing);
      const busy = new IdempotencyInProgressError(`${claim.id} is being processed by another call.`, { key, existing });
      const budget = waitUntil - Date.now();
      if (config.inProgress === 'throw' || budget <= 0) throw busy;
      const waited = await waitForOwner(store, claim.id, existing, budget, wait, systemClock);
      if (waited.kind === 'timed-out') throw busy;
      if (waited.kind === 'completed') return replay(waited.record);
    }
  };
}
