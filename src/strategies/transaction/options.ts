/**
 * What the transaction builder accepts: the input types of `tx.put()`,
 * `tx.update()`, `tx.delete()` and `tx.conditionCheck()`, the builder's
 * options with the rules that check them at construction (a bad option is a
 * `TypeError` naming it), and the guards on an action's `TableName` and `Key`.
 */
import { checkOptions, hasMethods, is, isPlainObject, type OptionRules } from '../../engine/options.js';
import { MAX_TRANSACTION_ACTIONS } from '../../engine/size.js';
import type { ItemRef } from '../../engine/transaction-limits.js';
import type { Clock } from '../../engine/clock.js';
import type { TransactItem } from '../../engine/store.js';

/** Input of `tx.put()`: the `Put` member of a DocumentClient `TransactWriteItems` action. */
export type TransactPutInput = NonNullable<TransactItem['Put']>;
/** Input of `tx.update()`: the `Update` member of a DocumentClient `TransactWriteItems` action. */
export type TransactUpdateInput = NonNullable<TransactItem['Update']>;
/** Input of `tx.delete()`: the `Delete` member of a DocumentClient `TransactWriteItems` action. */
export type TransactDeleteInput = NonNullable<TransactItem['Delete']>;
/** Input of `tx.conditionCheck()`: the `ConditionCheck` member of a DocumentClient `TransactWriteItems` action. */
export type TransactConditionCheckInput = NonNullable<TransactItem['ConditionCheck']>;

/** Options of `TransactionBuilder` (builder.ts). */
export interface TransactionBuilderOptions {
  /** Actions kept free for the library's own items (the idempotency record). Default 1. */
  readonly reservedActions?: number;
  /** Bytes kept free for the library's own items (e.g. the idempotency record with its result). Default 0. */
  readonly reservedBytes?: number;
  /** An item the handler must not touch: the idempotency record. */
  readonly reservedItem?: ItemRef;
  /**
   * Key attribute names per table. A `Put` carries a whole item, not a key;
   * with its table's key names known (from here, from `reservedItem`, or from
   * any action on that table with a `Key`) two actions on one item are caught
   * before sending. Otherwise DynamoDB refuses them at commit.
   */
  readonly keySchema?: Readonly<Record<string, readonly string[]>>;
  /**
   * Set `ReturnValuesOnConditionCheckFailure` on every added action that has a
   * condition and does not choose for itself, so a business conflict reports
   * the item as it was.
   */
  readonly returnValuesOnConditionCheckFailure?: 'ALL_OLD' | 'NONE';
  /** The record's business key, carried by the errors this builder throws; with `consumer`, it derives `tx.outbox()` ids. */
  readonly businessKey?: string;
  /** The consumer name, which `tx.outbox()` derives ids from (the middleware sets it). */
  readonly consumer?: string;
  /** Clock for `tx.outbox()`'s `createdAt`. Default the system clock. */
  readonly clock?: Clock;
}

const OPTION_RULES: OptionRules = {
  reservedActions: {
    expected: 'an integer from 0 to 99',
    check: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < MAX_TRANSACTION_ACTIONS,
  },
  reservedBytes: { expected: 'a non-negative number of bytes', check: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0 },
  reservedItem: {
    expected: 'an object { tableName: string, key: { ...key attributes } }',
    check: (v) => isPlainObject(v) && typeof v['tableName'] === 'string' && isPlainObject(v['key']) && Object.keys(v['key']).length > 0,
  },
  keySchema: {
    expected: 'an object mapping each table name to its key attribute names',
    check: (v) => isPlainObject(v) && Object.values(v).every((names) => Array.isArray(names) && names.length > 0),
  },
  returnValuesOnConditionCheckFailure: is.oneOf('ALL_OLD', 'NONE'),
  businessKey: is.nonEmptyString,
  consumer: is.nonEmptyString,
  clock: hasMethods('an object with now()', 'now'),
};

/** Checks the builder's options. @throws TypeError naming the first unknown or wrongly typed one. */
export function validateOptions(options: TransactionBuilderOptions): void {
  checkOptions('TransactionBuilder', options, OPTION_RULES);
}

/** A `tx.<method>()` input must name its table. @throws TypeError otherwise. */
export function requireTable(method: string, table: unknown): asserts table is string {
  if (typeof table !== 'string' || table.length === 0) throw new TypeError(`tx.${method}(): TableName is required.`);
}

/** A `tx.<method>()` input's `Key`, which must be a non-empty object. @throws TypeError otherwise. */
export function requireKey(method: string, key: unknown): Readonly<Record<string, unknown>> {
  if (typeof key !== 'object' || key === null || Object.keys(key).length === 0) {
    throw new TypeError(`tx.${method}(): Key must be an object with the item's key attributes.`);
  }
  return key as Readonly<Record<string, unknown>>;
}
