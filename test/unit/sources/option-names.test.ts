/**
 * Option names are checked as own properties: prototype members are not options.
 */
import { describe, expect, it } from 'vitest';
import { eachRecord, sqsIdempotency, type IdempotencyStore } from '../../../src/index.js';

const store = {
  recordId: () => 'x',
  claim: async () => {
    throw new Error('unused');
  },
  complete: async () => {
    throw new Error('unused');
  },
  release: async () => {
    throw new Error('unused');
  },
  commit: async () => {
    throw new Error('unused');
  },
  get: async () => undefined,
  staleClaims: async () => [],
} as unknown as IdempotencyStore;

describe('unknown options named like Object.prototype members', () => {
  it('sqsIdempotency rejects an unknown option called "constructor" / "toString" (names are own properties of the rules, not the prototype’s)', () => {
    expect(() => sqsIdempotency({ store, key: () => 'k', toString: 'oops' } as never)).toThrow(/unknown option "toString"/);
    expect(() => eachRecord(() => undefined, { constructor: 3 } as never)).toThrow(/unknown option "constructor"/);
  });
});
