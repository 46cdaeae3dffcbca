/**
 * The store seam the middlewares depend on: `IdempotencyStore` for the claim
 * strategy, `TransactionalIdempotencyStore` (adds `commit`) for the
 * transaction strategy. `DynamoDBIdempotencyStore` implements both; other
 * backends implement what they can and prove it with `storeContract`.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord } from './record.js';

/** One DocumentClient-shaped `TransactWriteItems` action (`Put`, `Update`, `Delete` or `ConditionCheck`). */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Input of {@link IdempotencyStore.claim}. */
export interface ClaimInput {
  readonly consumer: string;
  /** Business key (raw; the store hashes it when configured to). */
  readonly key: string;
  readonly payloadHash?: string;
  readonly messageId?: string;
  /** How long the claim is protected from takeover, ms from now. */
  readonly leaseMs: number;
}

/** Result of a claim. A lost claim carries the existing record from the same round trip. */
export type ClaimResult =
  | { readonly kind: 'claimed'; readonly id: string; readonly token: string; readonly record: IdempotencyRecord }
  | { readonly kind: 'completed'; readonly id: string; readonly existing: IdempotencyRecord; readonly fromCache: boolean }
  | { readonly kind: 'in-progress'; readonly id: string; readonly existing: IdempotencyRecord };

/** Input of {@link IdempotencyStore.complete}. */
export interface CompleteInput {
  readonly id: string;
  /** Owner token from the claim: the write is fenced on it. */
  readonly token: string;
  /** The handler's result, stored when `storeResult` is true (size-guarded). */
  readonly result?: unknown;
  readonly storeResult?: boolean;
}

/** Input of {@link IdempotencyStore.release}. */
export interface ReleaseInput {
  readonly id: string;
  readonly token: string;
  /** Why the handler failed (kept on FAILED records with `release: 'mark-failed'`). */
  readonly error?: unknown;
}

/** Input of {@link IdempotencyStore.renew}: extend a claim's lease (the heartbeat). */
export interface RenewInput {
  readonly id: string;
  /** Owner token from the claim: the write is fenced on it. */
  readonly token: string;
  /** The new lease, ms from now (the record's `leaseUntil` becomes now + leaseMs). */
  readonly leaseMs: number;
}

/** Result of a fenced write after the claim. */
export type FencedWriteResult =
  | { readonly kind: 'ok'; readonly record?: IdempotencyRecord }
  /** The owner-token condition failed: another invocation owns the key now (or the record is gone). */
  | { readonly kind: 'lease-lost'; readonly current?: IdempotencyRecord };

/** Input of {@link TransactionalIdempotencyStore.commit} (transaction strategy). */
export interface CommitInput {
  readonly consumer: string;
  readonly key: string;
  readonly payloadHash?: string;
  readonly messageId?: string;
  /** The handler's writes, committed with the idempotency record in one `TransactWriteItems`. */
  readonly actions: readonly TransactItem[];
  /** Stored on the idempotency record when `storeResult` is true. */
  readonly result?: unknown;
  readonly storeResult?: boolean;
}

/** Result of a transaction commit. Retryable cancellations are thrown as `TransactionRetryableError`. */
export type CommitResult =
  | { readonly kind: 'committed'; readonly id: string; readonly record: IdempotencyRecord }
  | { readonly kind: 'duplicate'; readonly id: string; readonly existing: IdempotencyRecord; readonly fromCache: boolean }
  | {
      readonly kind: 'business-conflict';
      readonly id: string;
      readonly error: import('./errors.js').BusinessConflictError;
    };

/**
 * One record's answer from {@link TransactionalIdempotencyStore.commitGroup}:
 * what `commit` would have returned for it, or the error it would have thrown.
 */
export type GroupCommitAnswer = StoreAnswer<CommitResult>;

/**
 * One input's answer from a store's batched call ({@link IdempotencyStore.claimMany},
 * {@link IdempotencyStore.completeMany}): what the single call would have
 * returned for it, or the error it would have thrown.
 */
export type StoreAnswer<T> = { readonly kind: 'result'; readonly result: T } | { readonly kind: 'error'; readonly error: unknown };

/**
 * A single call's answer as a batched call gives it: its result, or the
 * error it threw (a store's batched calls answer every input, never reject
 * for one).
 */
export async function answerOf<T>(call: () => Promise<T>): Promise<StoreAnswer<T>> {
  try {
    return { kind: 'result', result: await call() };
  } catch (error) {
    return { kind: 'error', error };
  }
}

/** A claim whose lease passed long ago: most likely a crashed consumer (`DynamoDBIdempotencyStore.staleClaims`). */
export interface StaleClaim {
  readonly id: string;
  readonly leaseUntil: number;
  readonly messageId?: string;
  readonly attempts?: number;
  readonly claimedAt?: number;
}

/**
 * Where idempotency records live: what the claim strategy (SQS and
 * EventBridge) needs. Every state change is a conditional write; no method
 * reads before it writes. A store proves it keeps the rules with
 * `storeContract` from `effectively-once/testing`.
 *
 * @example
 * ```ts
 * import type { IdempotencyStore } from 'effectively-once';
 * async function once(store: IdempotencyStore, key: string, effect: () => Promise<void>): Promise<void> {
 *   const claim = await store.claim({ consumer: 'payments', key, leaseMs: 30_000 });
 *   if (claim.kind !== 'claimed') return;
 *   try {
 *     await effect();
 *   } catch (error) {
 *     await store.release({ id: claim.id, token: claim.token, error });
 *     throw error;
 *   }
 *   await store.complete({ id: claim.id, token: claim.token });
 * }
 * ```
 */
export interface IdempotencyStore {
  /**
   * The record id for a business key (`consumer#key`, hashed when configured). A key it cannot store: throw an
   * `InvalidRecordError` (the record is `invalid`); any other throw fails that record alone (retried).
   */
  recordId(consumer: string, key: string): string;
  /** Claims a key as IN_PROGRESS, or returns the record that prevents it. */
  claim(input: ClaimInput): Promise<ClaimResult>;
  /** Marks a claim COMPLETED, fenced on the owner token. */
  complete(input: CompleteInput): Promise<FencedWriteResult>;
  /** Gives a claim up so the retry can take it, fenced on the owner token. */
  release(input: ReleaseInput): Promise<FencedWriteResult>;
  /**
   * Extends a live claim's lease to now + `leaseMs`, fenced on the owner token
   * and IN_PROGRESS (`lease-lost` with the current record otherwise). Optional:
   * `claim({ heartbeat })` needs it, and is a `TypeError` at build time on a
   * store without it.
   */
  renew?(input: RenewInput): Promise<FencedWriteResult>;
  /** Reads a record (strongly consistent): to wait for an in-progress duplicate, and when a refused write did not return the record. */
  get(id: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Batched claims (optional): the claims of several keys in as few requests
   * as the store can (the DynamoDB store: PartiQL `BatchExecuteStatement`,
   * 25 statements a request; PartiQL's refusal of a key that has an item
   * does not return the item, so those are read, in one strongly consistent
   * request, and a free one is still taken over with a conditional write).
   * One answer per input, in input order, each exactly what `claim` would
   * have answered for it. The claim strategy sends a batch's claims through
   * it; without it, each key is claimed alone.
   */
  claimMany?(inputs: readonly ClaimInput[]): Promise<StoreAnswer<ClaimResult>[]>;
  /**
   * Batched completions (optional): several fenced completions in as few
   * requests as the store can. One answer per input, in input order, each
   * exactly what `complete` would have answered for it (an
   * `ItemTooLargeError` included). Without it, each claim is completed alone.
   */
  completeMany?(inputs: readonly CompleteInput[]): Promise<StoreAnswer<FencedWriteResult>[]>;
}

/**
 * What the transaction strategy needs on top: the idempotency record and the
 * handler's writes in one `TransactWriteItems`. `DynamoDBIdempotencyStore`
 * implements it.
 *
 * @example
 * ```ts
 * import type { TransactionalIdempotencyStore } from 'effectively-once';
 * async function recordOnly(store: TransactionalIdempotencyStore, key: string): Promise<boolean> {
 *   const result = await store.commit({ consumer: 'points', key, actions: [] });
 *   return result.kind === 'committed';
 * }
 * ```
 */
export interface TransactionalIdempotencyStore extends IdempotencyStore {
  /** Transaction strategy: idempotency record + business writes in one `TransactWriteItems`. */
  commit(input: CommitInput): Promise<CommitResult>;
  /**
   * Group commit (optional): the commits of several records, packed into as
   * few `TransactWriteItems` as the limits allow; each record stays atomic on
   * its own. One answer per input, in input order. Without it, records are
   * committed one by one.
   *
   * `found`: what a recent strongly consistent read (`getMany`) found, by
   * record id. A hint: a record found COMPLETED within its retention, with
   * the same payload, is answered as the duplicate its refused commit would
   * be, without sending it; one found held by a live claim or under another
   * payload is sent in a transaction of its own. Everything else commits as
   * without it.
   */
  commitGroup?(inputs: readonly CommitInput[], found?: ReadonlyMap<string, IdempotencyRecord>): Promise<GroupCommitAnswer[]>;
  /**
   * Group commit's duplicate probe (optional): the records stored under
   * these ids, in one strongly consistent read where the store can. Ids it
   * has no record for, or could not read, are absent. Without it, group
   * commit sends no probe.
   */
  getMany?(ids: readonly string[]): Promise<ReadonlyMap<string, IdempotencyRecord>>;
}

/** A store whose claims can be renewed (it has `renew`): what `claim({ heartbeat })` needs. */
export type RenewableIdempotencyStore = IdempotencyStore & Required<Pick<IdempotencyStore, 'renew'>>;

/** Whether `store` can renew a claim's lease (it has `renew`). */
export function isRenewableStore(store: IdempotencyStore): store is RenewableIdempotencyStore {
  return typeof store.renew === 'function';
}

/** Whether `store` can serve the transaction strategy (it has `commit`). */
export function isTransactionalStore(store: IdempotencyStore): store is TransactionalIdempotencyStore {
  return typeof (store as Partial<TransactionalIdempotencyStore>).commit === 'function';
}
