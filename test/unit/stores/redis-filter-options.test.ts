/**
 * Red-team acceptance: `withRedisFilter`'s `timeoutMs` is a `setTimeout`
 * delay. Node cannot wait longer than 2^31 - 1 ms: a larger delay fires after
 * 1 ms (with a TimeoutOverflowWarning), so every Redis call would count as a
 * timeout and the filter would silently never answer. Such a value is a wrong
 * option, refused when the filter is built.
 */
import { describe, expect, it } from 'vitest';
import { withRedisFilter } from '../../../src/index.js';
import { MemoryIdempotencyStore } from '../../../src/testing/index.js';

const redis = { sendCommand: async (): Promise<unknown> => null };

describe('withRedisFilter: timeoutMs within what a timer can wait', () => {
  it('refuses a timeoutMs past 2^31 - 1 ms with a TypeError naming it', () => {
    const inner = new MemoryIdempotencyStore();
    expect(() => withRedisFilter(inner, { redis, timeoutMs: 2 ** 31 })).toThrow(TypeError);
    expect(() => withRedisFilter(inner, { redis, timeoutMs: 2 ** 31 })).toThrow(/"timeoutMs"/);
  });

  it('accepts the longest delay a timer can wait', () => {
    expect(() => withRedisFilter(new MemoryIdempotencyStore(), { redis, timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });
});
