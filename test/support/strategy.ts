/**
 * Tests that run once per strategy keep the strategy's name as their label
 * (`describe.each(['claim', 'transaction'])`); the `strategy` option takes
 * only the objects `claim()` and `transaction()` return, so the name is
 * mapped at the call.
 */
import type { ClaimStrategy } from '../../src/strategies/claim/claim.js';
import type { Strategy } from '../../src/batch/options.js';
import { claim, transaction } from '../../src/index.js';
import type { TransactionStrategy } from '../../src/strategies/transaction/transaction.js';

/** The strategy object a strategy's name stands for, with its defaults. */
export function strategyOf(name: 'claim'): ClaimStrategy;
export function strategyOf(name: 'transaction'): TransactionStrategy;
export function strategyOf(name: Strategy): ClaimStrategy | TransactionStrategy;
export function strategyOf(name: Strategy): ClaimStrategy | TransactionStrategy {
  return name === 'claim' ? claim() : transaction();
}

/** When an SQS batch's records are claimed: all before the handler (`claim()`), or each just before it runs (`claim({ pipelined: true })`). */
export type ClaimsMode = 'batch' | 'pipelined';
