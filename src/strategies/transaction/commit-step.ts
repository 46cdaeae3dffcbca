/**
 * The transaction strategy's commit step, shared by every source: run
 * the handler with a fresh transaction builder, then commit its writes with
 * the idempotency record in one `TransactWriteItems`.
 */
import { InvalidRecordError, TransactionRetryableError } from '../../engine/errors.js';
import type { RecordOutcome } from '../../engine/outcomes.js';
import { commitRetryDelay } from './retry.js';
import {
  isTransactionalStore,
  type CommitInput,
  type CommitResult,
  type IdempotencyStore,
  type TransactionalIdempotencyStore,
} from '../../engine/store.js';
import { payloadMismatch } from '../../engine/prepare.js';
import { closeTransactionBuilder, TransactionBuilder } from './builder.js';
import type { CommitDelivery } from '../types.js';

/** How a business-condition failure is treated: retried (`fail`) or final (`acknowledge`). */
export type ConflictPolicy = 'fail' | 'acknowledge';

/** How a commit cancelled by contention is tried again within the invocation (see `commitRetryDelay`). */
export interface CommitRetry {
  /** Time left before the safety margin, ms (`Infinity` when unknown). */
  readonly timeLeftMs: () => number;
  /** Injectable for tests; default a timer and `Math.random`. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

interface CommitOptions {
  readonly storeResult: boolean;
  readonly onConflict: ConflictPolicy;
  /** Absent: retried within the attempt bound, with no time limit. */
  readonly retry?: CommitRetry;
  /** Sends the commit instead of `store.commit` (group commit queues it); answers as `store.commit` would. */
  readonly via?: (input: CommitInput) => Promise<CommitResult>;
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Commits the same `tx` items, again after a short pause while the
 * transaction is cancelled by contention (nothing was written), within the
 * bound and the time left; then the last `TransactionRetryableError` is thrown.
 */
async function commit(
  store: TransactionalIdempotencyStore,
  delivery: CommitDelivery,
  tx: TransactionBuilder,
  result: unknown,
  options: CommitOptions,
): Promise<CommitResult> {
  const input = {
    consumer: delivery.consumer,
    key: delivery.key,
    messageId: delivery.messageId,
    ...(delivery.payloadHash === undefined ? {} : { payloadHash: delivery.payloadHash }),
    actions: tx.items(),
    result,
    storeResult: options.storeResult,
  };
  const { timeLeftMs = () => Number.POSITIVE_INFINITY, sleep = timer, random = Math.random } = options.retry ?? {};
  for (let failed = 1; ; failed += 1) {
    try {
      return await (options.via === undefined ? store.commit(input) : options.via(input));
    } catch (error) {
      const pause = error instanceof TransactionRetryableError ? commitRetryDelay(failed, timeLeftMs(), random) : undefined;
      if (pause === undefined) throw error;
      await sleep(pause);
    }
  }
}

function toOutcome(delivery: CommitDelivery, committed: CommitResult, result: unknown, options: CommitOptions): RecordOutcome {
  const { messageId, key, payloadHash } = delivery;
  switch (committed.kind) {
    case 'committed':
      return { kind: 'completed', messageId, key, result };
    case 'duplicate': {
      const { existing } = committed;
      const message = `Key already recorded under ${committed.id} with a different payload.`;
      const error = payloadMismatch(payloadHash, existing.payloadHash, message, { key, existing });
      if (error !== undefined) return { kind: 'invalid', messageId, key, error };
      return { kind: 'duplicate', messageId, key, existing, fromCache: committed.fromCache };
    }
    case 'business-conflict':
      return { kind: 'conflict', messageId, key, final: options.onConflict === 'acknowledge', error: committed.error };
  }
}

/**
 * Runs `handler(tx)` then commits. Every failure becomes an outcome; nothing
 * here throws. A handler that adds no writes still records the idempotency
 * item, so a pure notification is deduplicated too.
 */
export async function runTransactional(
  store: TransactionalIdempotencyStore,
  delivery: CommitDelivery,
  options: CommitOptions,
  handler: (tx: TransactionBuilder) => Promise<unknown>,
): Promise<RecordOutcome> {
  const { messageId, key } = delivery;
  const tx = new TransactionBuilder({ returnValuesOnConditionCheckFailure: 'ALL_OLD', businessKey: key, consumer: delivery.consumer });
  let result: unknown;
  try {
    result = await handler(tx);
  } catch (error) {
    // As under the claim strategy: an invalid record thrown by the handler never heals.
    if (error instanceof InvalidRecordError) return { kind: 'invalid', messageId, key, error };
    return { kind: 'failed', messageId, key, error };
  } finally {
    // Whatever the handler adds from now on would not be in the commit: refuse it loudly.
    closeTransactionBuilder(tx);
  }
  try {
    return toOutcome(delivery, await commit(store, delivery, tx, result, options), result, options);
  } catch (error) {
    if (!(error instanceof InvalidRecordError) || !options.storeResult) {
      // Cancellations still refused after the in-invocation retries, limits, network: nothing was written; retry.
      return { kind: 'failed', messageId, key, error };
    }
    // The result cannot be stored: commit the effect without it (so it is not
    // lost, nor applied twice later); the record is completed, flagged for the line.
    return retryWithoutResult(store, delivery, tx, result, options, error);
  }
}

async function retryWithoutResult(
  store: TransactionalIdempotencyStore,
  delivery: CommitDelivery,
  tx: TransactionBuilder,
  result: unknown,
  options: CommitOptions,
  error: InvalidRecordError,
): Promise<RecordOutcome> {
  const { messageId, key } = delivery;
  try {
    const committed = await commit(store, delivery, tx, undefined, { ...options, storeResult: false });
    const outcome = toOutcome(delivery, committed, result, options);
    return outcome.kind === 'completed' ? { ...outcome, resultNotStored: error } : outcome;
  } catch (retryError) {
    return { kind: 'failed', messageId, key, error: retryError };
  }
}

/**
 * The middleware's store as a transactional one. The option check already
 * refused a store without `commit` for `strategy: transaction()`, so this
 * only narrows the type (and guards a store mutated after the build).
 */
export function asTransactional(store: IdempotencyStore): TransactionalIdempotencyStore {
  if (!isTransactionalStore(store))
    throw new TypeError('strategy "transaction" needs a store with commit() (a TransactionalIdempotencyStore).');
  return store;
}
