/**
 * The invocation's remaining time, as every phase of the lifecycle reads it.
 */
import type { Context } from 'aws-lambda';

/** Time left in the invocation, ms; unknown (tests, local runs) counts as unlimited and never stops work. */
export function remainingTime(context: Partial<Pick<Context, 'getRemainingTimeInMillis'>> | undefined): number {
  const ms = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : NaN;
  return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
}
