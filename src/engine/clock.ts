/**
 * Time. Everything inside works in epoch milliseconds; the store's
 * conditions and leases use an injectable clock (the middlewares measure
 * durations and waits on the wall clock). Only the TTL attribute is in
 * epoch seconds.
 */

/** A source of the current time in epoch milliseconds. Inject one in tests to move time. */
export interface Clock {
  /** Current time, epoch milliseconds. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Epoch milliseconds to the epoch seconds that DynamoDB's TTL expects (rounded up, so never early). */
export function toEpochSeconds(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}
