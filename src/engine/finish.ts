/** Finishing a claim: the one complete and the one release every path uses, both fenced on the claim's owner token. */
import { InvalidRecordError, LeaseLostError } from './errors.js';
import type { IdempotencyStore } from './store.js';

/** The claim being finished. */
export interface HeldClaim {
  readonly id: string;
  /** The business key (for the errors' context). */
  readonly key: string;
  readonly token: string;
}

/** How completing a claim went. */
export type Completion =
  | { readonly kind: 'completed' }
  /** Recorded done without its result (too large, not JSON): `error` says why the result is not kept. */
  | { readonly kind: 'completed-without-result'; readonly error: InvalidRecordError }
  /** The owner-token condition failed: another owner holds the key now (or the record is gone). */
  | { readonly kind: 'lease-lost'; readonly error: LeaseLostError }
  /** The store refused the request (throttling, network): the key is not recorded done. */
  | { readonly kind: 'failed'; readonly error: unknown };

function leaseLost(claim: HeldClaim, current: import('./record.js').IdempotencyRecord | undefined): Completion {
  const existing = current === undefined ? {} : { existing: current };
  const error = new LeaseLostError(`Lease on ${claim.id} was taken over; completion refused.`, { key: claim.key, ...existing });
  return { kind: 'lease-lost', error };
}

/**
 * Marks the claim COMPLETED (with `result` when `storeResult`). A result the
 * store cannot take (an `InvalidRecordError`: too large, not JSON) is
 * retried without it, so the effect is never run twice for want of room for
 * its result; a lease lost on that retry is a lost lease, not a stored key.
 */
export async function completeClaim(store: IdempotencyStore, claim: HeldClaim, result: unknown, storeResult: boolean): Promise<Completion> {
  const { id, token } = claim;
  let unstorable: InvalidRecordError | undefined;
  let written: Awaited<ReturnType<IdempotencyStore['complete']>>;
  try {
    written = await store.complete({ id, token, result, storeResult });
  } catch (err) {
    if (!(err instanceof InvalidRecordError)) return { kind: 'failed', error: err };
    unstorable = err;
    try {
      written = await store.complete({ id, token, storeResult: false });
    } catch (retried) {
      return { kind: 'failed', error: retried };
    }
  }
  if (written.kind === 'lease-lost') return leaseLost(claim, written.current);
  return unstorable === undefined ? { kind: 'completed' } : { kind: 'completed-without-result', error: unstorable };
}

/**
 * Gives a claim up so a retry can take it, fenced on its token. Never throws: a failed release (throttling, or the
 * claim already changed hands) leaves the claim to end with its lease, and the retry takes it over then.
 */
export async function releaseHeld(store: IdempotencyStore, claim: Pick<HeldClaim, 'id' | 'token'>, error?: unknown): Promise<void> {
  try {
    await store.release({ id: claim.id, token: claim.token, ...(error === undefined ? {} : { error }) });
  } catch {
    // See above: the caller reports the failure either way.
  }
}
