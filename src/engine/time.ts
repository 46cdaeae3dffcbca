/**
 * The invocation's remaining time, as every phase of the lifecycle reads it,
 * and the one race of a promise against a timer.
 */
import type { Context } from 'aws-lambda';

/** Time left in the invocation, ms; unknown (tests, local runs) counts as unlimited and never stops work. */
export function remainingTime(context: Partial<Pick<Context, 'getRemainingTimeInMillis'>> | undefined): number {
  const ms = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : NaN;
  return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
}

/**
 * The first of `racers` to settle, or `late` when none has within `ms`; the
 * timer is cleared either way. `unref`: the timer alone does not keep the
 * process alive.
 */
export async function settleWithin<T, L>(racers: readonly Promise<T>[], ms: number, late: L, unref = false): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
    if (unref) timer.unref();
  });
  try {
    return await Promise.race([...racers, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
