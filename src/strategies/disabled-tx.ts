/**
 * The `tx` handed to per-record handlers when the strategy is not
 * `transaction()`. Every call throws: writes added here would never be sent,
 * and a silently dropped write is a lost effect.
 */
import type { TransactionBuilder } from './transaction/builder.js';

/** A TransactionBuilder whose every method throws a TypeError explaining why. */
export function disabledTransaction(reason: string): TransactionBuilder {
  return new Proxy({} as TransactionBuilder, {
    get(_target, property) {
      if (property === 'then') return undefined; // not a thenable
      return () => {
        throw new TypeError(`tx.${String(property)}() is not available: ${reason}`);
      };
    },
  });
}
