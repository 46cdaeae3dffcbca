/**
 * Red-team acceptance: `eventBridgeIdempotency({ wait })` accepts delays a
 * timer cannot keep. `wait.initialDelayMs: Infinity` makes the wait give up
 * before its first poll (every in-progress duplicate throws at once, as if
 * `inProgress: 'throw'`); a delay past 2^31 - 1 ms fires after 1 ms (a
 * TimeoutOverflowWarning and a busy poll); `initialDelayMs > maxDelayMs` is
 * contradictory. `lease` already refuses non-finite values and floor > cap;
 * `wait` should be checked the same way, when the middleware is built.
 *
 * Fixed: the rule (`waitRule`, src/engine/wait.ts) bounds each value
 * and the merged initialDelayMs <= maxDelayMs. The other ms options:
 * test/unit/timer-bounds.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { eventBridgeIdempotency } from '../../../src/index.js';
import { MemoryIdempotencyStore } from '../../../src/testing/index.js';

const build = (wait: Record<string, number>) => () =>
  eventBridgeIdempotency({ store: new MemoryIdempotencyStore(), key: () => 'k', inProgress: 'wait', wait });

describe('acceptance: eventBridgeIdempotency wait bounds', () => {
  it('refuses a non-finite delay', () => {
    expect(build({ initialDelayMs: Number.POSITIVE_INFINITY })).toThrow(/"wait"/);
  });
  it('refuses a delay a timer cannot wait (past 2^31 - 1 ms)', () => {
    expect(build({ maxDelayMs: 2 ** 31 })).toThrow(/"wait"/);
  });
  it('refuses initialDelayMs above maxDelayMs', () => {
    expect(build({ initialDelayMs: 5_000, maxDelayMs: 10 })).toThrow(/"wait"/);
  });
  it('accepts sensible bounds', () => {
    expect(build({ maxMs: 10_000, initialDelayMs: 50, maxDelayMs: 500 })).not.toThrow();
    // A lone maxDelayMs below the default first delay (100 ms) caps it rather than contradicting a value the user never wrote.
    expect(build({ maxDelayMs: 50 })).not.toThrow();
  });
});
