/**
 * Per-message backoff: how long a record that comes back stays invisible,
 * from its receive count. Pure; the SQS call lives in src/sources/sqs/backoff.ts.
 */

/** The longest visibility timeout SQS accepts (12 hours). */
export const MAX_VISIBILITY_SECONDS = 43_200;

/** Exponential backoff bounds, in whole seconds. */
export interface BackoffPolicy {
  /** The ceiling after the first receive; it doubles with each further receive. */
  readonly baseSeconds: number;
  /** The ceiling never exceeds this (at most 43200, SQS's limit). */
  readonly maxSeconds: number;
}

/**
 * Full jitter: a whole number of seconds drawn uniformly from
 * `0..min(maxSeconds, baseSeconds * 2^(receiveCount - 1))`. Jitter spreads
 * the retries of a batch that failed together (a downstream outage), so they
 * do not all come back in the same second.
 *
 * @param random a number in [0, 1) (`Math.random` unless a test injects one)
 */
export function backoffSeconds(receiveCount: number, policy: BackoffPolicy, random: () => number): number {
  const exponent = Math.max(0, Math.min(receiveCount - 1, 64));
  const ceiling = Math.min(policy.maxSeconds, MAX_VISIBILITY_SECONDS, policy.baseSeconds * 2 ** exponent);
  const r = random();
  // A random source that strays out of [0, 1) must not turn into a negative or endless timeout.
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return Math.min(Math.floor(unit * (ceiling + 1)), Math.floor(ceiling));
}
