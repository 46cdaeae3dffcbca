/**
 * The in-invocation retry of a transaction cancelled by contention
 * (TransactionConflict, throttling). Such a cancellation wrote nothing, so
 * committing the same items again is safe; doing it here, a few tens of ms
 * later, spares the record a whole redelivery (an SQS receive, or one of
 * Lambda's two async retries) for what is usually a momentary clash.
 */

/** Bounds of that retry. */
export interface CommitRetryPolicy {
  /** Commits in all, the first one included. */
  readonly attempts: number;
  /** Ceiling of the first pause, ms; it doubles for each later one. */
  readonly baseDelayMs: number;
  /** Ceiling of any pause, ms. */
  readonly maxDelayMs: number;
}

/**
 * Three commits in all, pauses of at most 25 then 50 ms: enough to ride out
 * a clash with a concurrent transaction, short enough that a hot item fails
 * fast and goes back to the queue's own backoff.
 */
export const commitRetryDefaults: CommitRetryPolicy = Object.freeze({ attempts: 3, baseDelayMs: 25, maxDelayMs: 100 });

/**
 * The pause before the next commit after `failed` contention cancellations in a row, or `undefined`: give up, the
 * record failed. Full jitter (uniform in [0, ceiling), the ceiling doubling from `baseDelayMs` to `maxDelayMs`); it
 * gives up too when the pause would use up `timeLeftMs`, the time before the safety margin.
 */
export function commitRetryDelay(
  failed: number,
  timeLeftMs: number,
  random: () => number,
  policy: CommitRetryPolicy = commitRetryDefaults,
): number | undefined {
  if (failed >= policy.attempts) return undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failed - 1));
  const unit = Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
  const delay = Math.floor(unit * ceiling);
  return delay < timeLeftMs ? delay : undefined;
}
