/**
 * Settling a claim, for every source: turning an owned record's execution
 * into its final outcome with fenced writes — complete on success, release on failure.
 * Every write is conditioned on the claim's owner token, so an invocation
 * whose lease was taken over can change nothing.
 */
import { DeadlineError, InvalidRecordError, LeaseLostError } from './errors.js';
import type { RecordOutcome } from './outcomes.js';
import type { IdempotencyStore } from '../stores/types.js';
import type { NotStartedReason } from '../batch/runner-link.js';

/** A record this invocation may process: claimed (claim strategy) or valid (transaction strategy). */
export interface OwnedRecord {
  readonly messageId: string;
  readonly key: string;
  readonly id: string;
  readonly payloadHash?: string;
  /** Owner token of the claim (claim strategy only). */
  readonly token?: string;
}

/** What happened when the handler ran a record. */
export type Execution =
  | { readonly kind: 'succeeded'; readonly result: unknown }
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'not-started'; readonly reason: NotStartedReason | 'handler-threw' }
  /** Already final (settled inline as the record finished). */
  | { readonly kind: 'settled'; readonly outcome: RecordOutcome }
  /** Still running when the invocation ended (e.g. Middy's early timeout): its claim is left to its lease. */
  | { readonly kind: 'interrupted'; readonly error: unknown };

/** An execution not yet final: what {@link settleClaim} turns into an outcome, once per record. */
export type UnsettledExecution = Exclude<Execution, { readonly kind: 'settled' }>;

/**
 * Releases a claim so the retry can take it. A failed release is not fatal:
 * the claim then expires with its lease and the retry takes it over.
 */
export async function releaseClaim(store: IdempotencyStore, owned: OwnedRecord, error?: unknown): Promise<void> {
  if (owned.token === undefined) return;
  try {
    await store.release({ id: owned.id, token: owned.token, ...(error === undefined ? {} : { error }) });
  } catch {
    // Deliberately swallowed: see above. The record is reported failed either way.
  }
}

async function completeClaim(store: IdempotencyStore, owned: OwnedRecord, result: unknown, storeResult: boolean): Promise<RecordOutcome> {
  const base = { messageId: owned.messageId, key: owned.key };
  const token = owned.token ?? '';
  try {
    const written = await store.complete({ id: owned.id, token, result, storeResult });
    if (written.kind === 'lease-lost') {
      const error = new LeaseLostError(`Lease on ${owned.id} was taken over; completion refused.`, {
        key: owned.key,
        ...(written.current === undefined ? {} : { existing: written.current }),
      });
      return { ...base, kind: 'lease-lost', error };
    }
    return { ...base, kind: 'completed', result };
  } catch (err) {
    if (!(err instanceof InvalidRecordError)) return { ...base, kind: 'failed', error: err };
    // The result is too large or not storable, but the effect has happened:
    // record it without its result so it never runs twice, and fail this
    // delivery loudly; its redelivery is a duplicate.
    const retried = await store.complete({ id: owned.id, token, storeResult: false }).catch((e: unknown) => e);
    if (retried instanceof Error) return { ...base, kind: 'failed', error: retried };
    return { ...base, kind: 'invalid', error: err };
  }
}

/** Final outcome of one owned record under the claim strategy. */
export async function settleClaim(
  store: IdempotencyStore,
  owned: OwnedRecord,
  execution: UnsettledExecution,
  storeResult: boolean,
): Promise<RecordOutcome> {
  const base = { messageId: owned.messageId, key: owned.key };
  switch (execution.kind) {
    case 'succeeded':
      return completeClaim(store, owned, execution.result, storeResult);
    case 'threw':
      await releaseClaim(store, owned, execution.error);
      // A record the handler found invalid (a body failing its schema) never heals: invalid, not failed.
      if (execution.error instanceof InvalidRecordError) return { ...base, kind: 'invalid', error: execution.error };
      return { ...base, kind: 'failed', error: execution.error };
    case 'interrupted':
      // Releasing would let a redelivery run the effect while this handler may still finish it.
      return { ...base, kind: 'failed', error: execution.error };
    case 'not-started':
      await releaseClaim(store, owned);
      if (execution.reason !== 'deadline') return { ...base, kind: 'not-started', reason: execution.reason };
      return {
        ...base,
        kind: 'not-started',
        reason: 'deadline',
        error: new DeadlineError('Not started: the remaining time fell under the safety margin.', { key: owned.key }),
      };
  }
}
