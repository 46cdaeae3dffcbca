/** Settling a claim, for every source: an owned record's execution to its final outcome, with the fenced writes of finish.ts. */
import { DeadlineError, InvalidRecordError } from './errors.js';
import { completeClaim, releaseHeld } from './finish.js';
import type { RecordOutcome } from './outcomes.js';
import type { IdempotencyStore } from './store.js';

/** Why a record was not started. */
export type NotStartedReason = 'deadline' | 'group-failed';

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
  /** `aboutTheBatch`: the record's handler never threw it (see `FailedOutcome`). */
  | { readonly kind: 'threw'; readonly error: unknown; readonly aboutTheBatch?: true }
  | { readonly kind: 'not-started'; readonly reason: NotStartedReason | 'handler-threw' }
  /** Already final (settled inline as the record finished). */
  | { readonly kind: 'settled'; readonly outcome: RecordOutcome }
  /** Still running when the invocation ended (e.g. Middy's early timeout): its claim is left to its lease. */
  | { readonly kind: 'interrupted'; readonly error: unknown; readonly aboutTheBatch?: true };

/** An execution not yet final: what {@link settleClaim} turns into an outcome, once per record. */
export type UnsettledExecution = Exclude<Execution, { readonly kind: 'settled' }>;

/** Releases a claim so the retry can take it (`releaseHeld`); a record without a token (transaction strategy) holds none. */
export async function releaseClaim(store: IdempotencyStore, owned: OwnedRecord, error?: unknown): Promise<void> {
  if (owned.token === undefined) return;
  await releaseHeld(store, { id: owned.id, token: owned.token }, error);
}

async function completeOwned(store: IdempotencyStore, owned: OwnedRecord, result: unknown, storeResult: boolean): Promise<RecordOutcome> {
  const base = { messageId: owned.messageId, key: owned.key };
  const done = await completeClaim(store, { id: owned.id, key: owned.key, token: owned.token ?? '' }, result, storeResult);
  switch (done.kind) {
    case 'completed':
      return { ...base, kind: 'completed', result };
    case 'completed-without-result':
      // The effect happened and is recorded: a completed record (never retried, never dead-lettered), flagged for the line.
      return { ...base, kind: 'completed', result, resultNotStored: done.error };
    case 'lease-lost':
      return { ...base, kind: 'lease-lost', error: done.error };
    case 'failed':
      return { ...base, kind: 'failed', error: done.error };
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
  const batchError = 'aboutTheBatch' in execution && execution.aboutTheBatch === true ? { aboutTheBatch: true as const } : {};
  switch (execution.kind) {
    case 'succeeded':
      return completeOwned(store, owned, execution.result, storeResult);
    case 'threw':
      await releaseClaim(store, owned, execution.error);
      // A record the handler found invalid (a body failing its schema) never heals: invalid, not failed.
      if (execution.error instanceof InvalidRecordError) return { ...base, kind: 'invalid', error: execution.error };
      return { ...base, kind: 'failed', error: execution.error, ...batchError };
    case 'interrupted':
      // Releasing would let a redelivery run the effect while this handler may still finish it.
      return { ...base, kind: 'failed', error: execution.error, ...batchError };
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
