/**
 * Waiting for an in-progress duplicate (EventBridge, `inProgress: 'wait'`):
 * poll the record with backoff, within the remaining time, until its owner
 * completes it (replay its result) or gives it up (claim it ourselves).
 */
import { claimVerdict } from './claim.js';
import type { Clock } from './clock.js';
import type { IdempotencyRecord } from './record.js';
import { isMsIn, isPlainObject, MAX_TIMER_MS, type OptionRule } from './options.js';
import type { IdempotencyStore } from './store.js';

/** Backoff bounds for waiting, ms. */
export interface WaitPolicy {
  /** Give up after this long (also bounded by the Lambda's remaining time). */
  readonly maxMs: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/** The `wait` option (`inProgress: 'wait'`): any of {@link WaitPolicy}'s bounds, the others left at their defaults. */
// An interface, not an alias: the API report and editors then show the name, as `LeaseOptions` for `lease`.
export interface WaitOptions extends Partial<WaitPolicy> {}

/** What the wait ended with. */
export type WaitResult =
  | { readonly kind: 'completed'; readonly record: IdempotencyRecord }
  /** The owner released it or its lease passed: the caller may claim again. */
  | { readonly kind: 'claimable' }
  | { readonly kind: 'timed-out'; readonly record: IdempotencyRecord };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `id` until it is no longer in progress or `budgetMs` is spent. */
export async function waitForOwner(
  store: IdempotencyStore,
  id: string,
  last: IdempotencyRecord,
  budgetMs: number,
  policy: WaitPolicy,
  clock: Clock,
): Promise<WaitResult> {
  const deadline = clock.now() + Math.min(budgetMs, policy.maxMs);
  let delay = Math.min(policy.initialDelayMs, policy.maxDelayMs);
  let current = last;
  while (clock.now() + delay < deadline) {
    await sleep(delay);
    delay = Math.min(policy.maxDelayMs, delay * 2);
    const record = await store.get(id);
    // The claim's own rule, so the wait never calls "claimable" what the claim condition refuses.
    const verdict = claimVerdict(record, clock.now());
    if (record === undefined || verdict === 'free') return { kind: 'claimable' };
    if (verdict === 'duplicate') return { kind: 'completed', record };
    current = record;
  }
  return { kind: 'timed-out', record: current };
}

/**
 * `inProgress: 'wait'`: poll an in-progress owner until it finishes, at most
 * until `until` (see `ownerWait`: the polling comes with the wait, so a batch,
 * which never waits, does not carry it).
 */
export interface ClaimWait {
  /** Local epoch ms: one deadline for the whole wait, however many claim-and-wait rounds it takes. */
  readonly until: number;
  readonly policy: WaitPolicy;
  readonly poll: typeof waitForOwner;
}

/** The wait of `claimAndDecide`: poll the owner with `policy` until `until` (local epoch ms). */
export function ownerWait(until: number, policy: WaitPolicy): ClaimWait {
  return { until, policy, poll: waitForOwner };
}

/** The `wait` option's rule (also `idempotent`'s). */
// Each delay feeds a timer: past MAX_TIMER_MS it would fire after 1 ms; Infinity would end the wait before its first poll.
export const waitRule: OptionRule = {
  partial: true,
  expected: `an object with maxMs, initialDelayMs, maxDelayMs (positive numbers of ms, at most ${MAX_TIMER_MS}; initialDelayMs <= maxDelayMs when both are given)`,
  check: (v: unknown) => {
    if (!isPlainObject(v)) return false;
    const entries = Object.entries(v).filter(([, n]) => n !== undefined);
    const known = ['maxMs', 'initialDelayMs', 'maxDelayMs'];
    if (!entries.every(([k, n]) => known.includes(k) && isMsIn(n, true, MAX_TIMER_MS))) return false;
    // Only a pair the user wrote can contradict itself; a lone maxDelayMs below the default first delay caps it (see the wait).
    const given = Object.fromEntries(entries) as Partial<WaitPolicy>;
    return given.initialDelayMs === undefined || given.maxDelayMs === undefined || given.initialDelayMs <= given.maxDelayMs;
  },
};
