/**
 * Tests that run once per strategy keep the strategy's name as their label
 * (`describe.each(['claim', 'transaction'])`); the `strategy` option takes
 * only the objects `claim()` and `transaction()` return, so the name is
 * mapped at the call.
 */
import type { ClaimStrategy } from '../../src/strategies/claim/claim.js';
import type { Strategy } from '../../src/batch/options.js';
import type { SQSRecord } from 'aws-lambda';
import { claim, eachRecord, transaction, type RecordContext, type TransactionBuilder } from '../../src/index.js';
import type { TransactionStrategy } from '../../src/strategies/transaction/transaction.js';

/** The strategy object a strategy's name stands for, with its defaults. */
export function strategyOf(name: 'claim'): ClaimStrategy;
export function strategyOf(name: 'transaction'): TransactionStrategy;
export function strategyOf(name: Strategy): ClaimStrategy | TransactionStrategy;
export function strategyOf(name: Strategy): ClaimStrategy | TransactionStrategy {
  return name === 'claim' ? claim() : transaction();
}

/**
 * The record runner a strategy's name calls for: `eachRecord.inTransaction`
 * (its handlers get `tx`) for a transaction, `eachRecord` for a claim. A
 * handler that takes `tx` as optional serves both: `inTransaction` only adds it.
 */
export function runner(name: Strategy): typeof eachRecord {
  return name === 'transaction' ? (eachRecord.inTransaction as unknown as typeof eachRecord) : eachRecord;
}

/** A record handler for either strategy: `tx` is there under a transaction (run by `eachRecord.inTransaction`). */
export type EitherRecordHandler<TRecord = SQSRecord> = (
  record: TRecord,
  ctx: RecordContext & { readonly tx?: TransactionBuilder },
) => unknown;

/** When an SQS batch's records are claimed: all before the handler (`claim()`), or each just before it runs (`claim({ pipelined: true })`). */
export type ClaimsMode = 'batch' | 'pipelined';
