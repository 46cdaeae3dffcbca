/**
 * The store seam at build time: a claim-only store (no `commit`) serves the
 * claim strategy and is refused, naming the option, for the transaction
 * strategy; a store missing a claim-strategy method is refused too.
 */
import { describe, expect, it } from 'vitest';
import { eventBridgeIdempotency, sqsIdempotency, type IdempotencyStore, transaction, claim } from '../../../src/index.js';

const unused = async (): Promise<never> => {
  throw new Error('unused');
};
const claimOnly: IdempotencyStore = { recordId: () => 'x', claim: unused, complete: unused, release: unused, get: async () => undefined };
const key = (): string => 'k';

describe('the store option', () => {
  it('accepts a claim-only store for the claim strategy (explicit and default)', () => {
    expect(sqsIdempotency({ store: claimOnly, key, strategy: claim() }).before).toBeTypeOf('function');
    expect(sqsIdempotency({ store: claimOnly, key }).before).toBeTypeOf('function');
    expect(eventBridgeIdempotency({ store: claimOnly, key, strategy: claim() }).before).toBeTypeOf('function');
  });

  it('refuses a store without commit for strategy "transaction", naming "store"', () => {
    expect(() => sqsIdempotency({ store: claimOnly, key, strategy: transaction() })).toThrow(TypeError);
    expect(() => sqsIdempotency({ store: claimOnly, key, strategy: transaction() })).toThrow(/sqsIdempotency: option "store".*commit/);
    expect(() => eventBridgeIdempotency({ store: claimOnly, key, strategy: transaction() })).toThrow(
      /eventBridgeIdempotency: option "store".*commit/,
    );
  });

  it('accepts a store with commit for strategy "transaction"', () => {
    const transactional = { ...claimOnly, commit: unused };
    expect(sqsIdempotency({ store: transactional, key, strategy: transaction() }).before).toBeTypeOf('function');
    expect(eventBridgeIdempotency({ store: transactional, key, strategy: transaction() }).before).toBeTypeOf('function');
  });

  it('refuses a store missing a claim-strategy method (get), naming "store"', () => {
    const { get: _get, ...noGet } = claimOnly;
    expect(() => sqsIdempotency({ store: noGet as unknown as IdempotencyStore, key })).toThrow(
      /option "store" must be an IdempotencyStore/,
    );
  });
});
