/**
 * `transaction()`: the transaction strategy as a middleware's `strategy` option, with the settings only a transaction
 * has; `commit` and `probeDuplicates` shape how an SQS batch commits, so the object carrying them is a type only
 * `sqsIdempotency` takes.
 */
import { asTransactional, runTransactional, type ConflictPolicy } from './commit-step.js';
import type { ProbeMode } from './group-commit/duplicate-probe.js';
import type { CommitMode } from './group-commit/queue.js';
import { checkOptions } from '../../engine/options.js';
import { isTransactionalStore } from '../../engine/store.js';
import { strategyObject, type EventStrategy, type StepSettings, type StrategySteps, type StrategyUse } from '../types.js';
// The steps the batch middlewares run: reached only through this factory, so a handler that never calls it bundles none of them.
import { transactionBatchStrategy, type TransactionSettings } from './steps.js';

/** Defaults of `transaction()`'s settings. */
const transactionDefaults = {
  onConflict: 'fail' as ConflictPolicy,
  commit: 'group' as CommitMode,
  probeDuplicates: 'auto' as ProbeMode,
};

/** Options of {@link transaction}. */
export interface TransactionOptions {
  /**
   * `sqsIdempotency` only: how records' transactions are sent. `'group'`
   * (default): once no handler of the batch is running, the waiting records
   * commit together (group commit, usually one `TransactWriteItems` per
   * batch), each still atomic on its own. `'record'`: each record commits
   * right after its handler, in its own `TransactWriteItems`. See
   * docs/transactions.md, "Group commit".
   */
  readonly commit?: CommitMode;
  /**
   * `sqsIdempotency` with group commit only: when to read the batch's
   * idempotency records first (one strongly consistent `BatchGetItem`, sent
   * while the handlers run), so that a record already COMPLETED is answered
   * as a duplicate without cancelling the batch's transaction. `'auto'`
   * (default): when this container's recent records were duplicates often
   * enough to pay for the read; `'always'`; `'never'`.
   */
  readonly probeDuplicates?: ProbeMode;
  /**
   * A failed business condition (a `ConditionCheck` or conditional write of
   * the handler's `tx`): retried (`'fail'`, default: the record comes back,
   * the event throws) or final (`'acknowledge'`: the record is acknowledged,
   * the event returns undefined).
   */
  readonly onConflict?: ConflictPolicy;
}

/**
 * The transaction strategy every middleware takes: what {@link transaction}
 * returns without `commit` or `probeDuplicates`. Its steps (`check`,
 * `batch`) are the middleware's to call.
 */
export interface TransactionStrategy extends StrategySteps {
  readonly kind: 'transaction';
  readonly onConflict: ConflictPolicy;
  /** Absent: the source's own way to commit (a batch: group commit, probing `'auto'`). */
  readonly commit?: never;
  readonly probeDuplicates?: never;
}

/** The transaction strategy with its batch commit settings (`transaction({ commit, probeDuplicates })`): `sqsIdempotency` only. */
export interface SqsTransactionStrategy extends StrategySteps {
  readonly kind: 'transaction';
  readonly onConflict: ConflictPolicy;
  readonly commit: CommitMode;
  readonly probeDuplicates: ProbeMode;
}

const OWNER = 'transaction()';

/** A transaction's settings, as its steps read them. */
type TransactionObject = Omit<TransactionSettings, 'store' | 'storeResult'>;

/** The steps of `transaction()`: on the prototype of what it returns. */
const transactionSteps: StrategySteps = {
  check(this: TransactionObject, { owner, store, commitSettings }: StrategyUse): void {
    if ((this.commit !== undefined || this.probeDuplicates !== undefined) && !commitSettings) {
      throw new TypeError(
        `${owner}: option "strategy" is transaction({ commit, probeDuplicates }), which only sqsIdempotency takes; use transaction({ onConflict }).`,
      );
    }
    if (!isTransactionalStore(store)) {
      throw new TypeError(
        `${owner}: option "store" must be a TransactionalIdempotencyStore (with commit) for strategy "transaction"; this store supports only strategy "claim".`,
      );
    }
  },
  batch(this: TransactionObject, settings: StepSettings) {
    const { onConflict, commit, probeDuplicates } = this;
    return transactionBatchStrategy({ ...settings, onConflict, commit, probeDuplicates });
  },
  event(this: TransactionObject, { store, storeResult }: Pick<StepSettings, 'store' | 'storeResult'>): EventStrategy {
    const { onConflict } = this;
    const committed = asTransactional(store);
    return {
      name: 'transaction',
      commit: (delivery, handler, timeLeftMs) =>
        runTransactional(committed, delivery, { storeResult, onConflict, retry: { timeLeftMs } }, handler),
    };
  },
};

// Plain literals (no calls): a claim-only bundle that never reads them drops them.
const transactionRules = {
  commit: { expected: 'one of "group", "record"', check: (v: unknown) => v === 'group' || v === 'record' },
  probeDuplicates: {
    expected: 'one of "auto", "always", "never"',
    check: (v: unknown) => v === 'auto' || v === 'always' || v === 'never',
  },
  onConflict: { expected: 'one of "fail", "acknowledge"', check: (v: unknown) => v === 'fail' || v === 'acknowledge' },
};

/**
 * The transaction strategy, for a middleware's `strategy` option: the
 * handler's `tx` writes and the idempotency record commit in one
 * `TransactWriteItems` (the store must be a `TransactionalIdempotencyStore`).
 * The handler gets `tx` from `eachRecord.inTransaction` (or
 * `eventBridgeHandler.inTransaction`).
 *
 * @throws TypeError naming the option when one is unknown or of the wrong type.
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
 * import { eachRecord, jsonBody, sqsIdempotency, transaction, type TransactionalIdempotencyStore } from 'effectively-once';
 *
 * declare const store: TransactionalIdempotencyStore; // a DynamoDBIdempotencyStore
 * export const handler = middy<SQSEvent, SQSBatchResponse>()
 *   .use(sqsIdempotency({
 *     store,
 *     consumer: 'ledger',
 *     key: (r) => jsonBody<{ paymentId: string }>(r).paymentId,
 *     strategy: transaction({ commit: 'record', onConflict: 'acknowledge' }),
 *   }))
 *   .handler(eachRecord.inTransaction(async (record, { tx }) => {
 *     tx.put({ TableName: 'ledger', Item: { pk: jsonBody<{ paymentId: string }>(record).paymentId } });
 *   }));
 * ```
 */
export function transaction(
  options?: Pick<TransactionOptions, 'onConflict'> & { readonly commit?: never; readonly probeDuplicates?: never },
): TransactionStrategy;
export function transaction(options: TransactionOptions): TransactionStrategy | SqsTransactionStrategy;
export function transaction(options: TransactionOptions = {}): TransactionStrategy | SqsTransactionStrategy {
  checkOptions(OWNER, options, transactionRules);
  const onConflict = options.onConflict ?? transactionDefaults.onConflict;
  // Only a caller who set a batch commit setting gets the object only sqsIdempotency takes.
  if (options.commit === undefined && options.probeDuplicates === undefined) {
    return strategyObject(transactionSteps, { kind: 'transaction', onConflict });
  }
  const { commit = transactionDefaults.commit, probeDuplicates = transactionDefaults.probeDuplicates } = options;
  return strategyObject(transactionSteps, { kind: 'transaction', onConflict, commit, probeDuplicates });
}
