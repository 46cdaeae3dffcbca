/**
 * The transaction strategy's commit step, shared by SQS and EventBridge: run
 * the handler with a fresh transaction builder, then commit its writes with
 * the idempotency record in one `TransactWriteItems`.
 */
import type { Context } from 'aws-lambda';
import type { RecordOutcome } from '../core/outcomes.js';
import type { IdempotencyStore } from '../store/types.js';
import { createTransactionBuilder, type TransactionBuilder } from '../transaction.js';

/** What a transactional run needs to know about the delivery. */
export interface TransactionalDelivery {
  readonly messageId: string;
  readonly consumer: string;
  readonly key: string;
  readonly payloadHash?: string;
}

/** How a business-condition failure is treated: retried (`fail`) or final (`acknowledge`). */
export type ConflictPolicy = 'fail' | 'acknowledge';

/**
 * Runs `handler(tx)` then commits. Every failure becomes an outcome; nothing
 * here throws. A handler that adds no writes still records the idempotency
 * item, so a pure notification is deduplicated too.
 */
export async function runTransactional(
  store: IdempotencyStore,
  delivery: TransactionalDelivery,
  options: { readonly storeResult: boolean; readonly onConflict: ConflictPolicy },
  handler: (tx: TransactionBuilder, context?: Context) => Promise<unknown>,
): Promise<RecordOutcome> {
  const { messageId, key } = delivery;
  const tx = createTransactionBuilder({ returnValuesOnConditionCheckFailure: 'ALL_OLD', businessKey: key });
  let result: unknown;
  try {
    result = await handler(tx);
  } catch (error) {
    return { kind: 'failed', messageId, key, error };
  }
  try {
    const committed = await store.commit({
      consumer: delivery.consumer,
      key,
      messageId,
      ...(delivery.payloadHash === undefined ? {} : { payloadHash: delivery.payloadHash }),
      actions: tx.items(),
      result,
      storeResult: options.storeResult,
    });
    switch (committed.kind) {
      case 'committed':
        return { kind: 'completed', messageId, key, result };
      case 'duplicate':
        return { kind: 'duplicate', messageId, key, existing: committed.existing, fromCache: committed.fromCache };
      case 'business-conflict':
        return { kind: 'conflict', messageId, key, final: options.onConflict === 'acknowledge', error: committed.error };
    }
  } catch (error) {
    // Retryable cancellations, limits, network: nothing was written; retry.
    return { kind: 'failed', messageId, key, error };
  }
}
