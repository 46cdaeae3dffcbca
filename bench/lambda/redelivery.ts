/**
 * Lambda Managed Instances: what the queue does with a record a handler
 * reported failed (`batchItemFailures`): it comes again once visible, in a
 * later batch, up to a number of receives. Pure functions, used by the
 * environment (lmi-environment.ts).
 */
import type { Delivery } from '../workload.js';

/** How long a record handed back waits before it comes again (a visibility timeout, scaled down to the run). */
export const REDELIVERY_DELAY_MS = 100;
/** Receives of one record before it is given up (counted; a dead-letter queue would get it). */
export const MAX_RECEIVES = 20;

/** A delivery waiting to be sent (again). */
export interface Waiting {
  readonly delivery: Delivery;
  /** How often it has been received so far, this time included once sent. */
  readonly receives: number;
  /** When it is visible again, ms (`performance.now()`). */
  readonly dueAt: number;
}

/** The due deliveries cut into batches of at most `size`, no event twice in one batch, in waiting order. */
export function dueBatches(waiting: readonly Waiting[], now: number, size: number): Waiting[][] {
  const batches: Waiting[][] = [];
  for (const w of waiting.filter((x) => x.dueAt <= now)) {
    const batch = batches.find((b) => b.length < size && !b.some((x) => x.delivery.event.orderNo === w.delivery.event.orderNo));
    if (batch === undefined) batches.push([w]);
    else batch.push(w);
  }
  return batches;
}

/** What becomes of a batch's failed deliveries: sent again later, or given up after `MAX_RECEIVES`. */
export function handBack(failed: readonly Waiting[], now: number): { again: Waiting[]; givenUp: number } {
  const again = failed
    .filter((w) => w.receives < MAX_RECEIVES)
    .map((w) => ({ delivery: w.delivery, receives: w.receives + 1, dueAt: now + REDELIVERY_DELAY_MS }));
  return { again, givenUp: failed.length - again.length };
}
