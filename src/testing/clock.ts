/**
 * A clock tests move by hand, so visibility timeouts, leases and retry delays
 * pass instantly and deterministically instead of by sleeping.
 */
import type { Clock } from '../engine/clock.js';

/** A clock that can be moved forward. The simulators advance one when they need time to pass. */
export interface AdvanceableClock extends Clock {
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void;
}

/**
 * A manual clock in epoch milliseconds. It only moves when told to.
 *
 * @example
 * ```ts
 * import { ManualClock } from 'effectively-once/testing';
 * const clock = new ManualClock(Date.UTC(2025, 0, 1));
 * clock.advance(30_000);
 * console.log(new Date(clock.now()).toISOString()); // 2025-01-01T00:00:30.000Z
 * ```
 */
export class ManualClock implements AdvanceableClock {
  #now: number;

  /** @param start - initial time, epoch ms (default 2025-01-01T00:00:00Z, fixed so runs repeat). */
  constructor(start: number = Date.UTC(2025, 0, 1)) {
    if (!Number.isFinite(start)) throw new TypeError(`ManualClock: "start" must be a finite number, got ${String(start)}.`);
    this.#now = start;
  }

  /** Current time, epoch ms. */
  now(): number {
    return this.#now;
  }

  /** Moves forward by `ms` (>= 0); time never goes back, as leases rely on it. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new TypeError(`ManualClock.advance: "ms" must be a finite number >= 0, got ${String(ms)}.`);
    this.#now += ms;
  }

  /** Moves to `epochMs` if that is later than now; otherwise does nothing. */
  advanceTo(epochMs: number): void {
    if (epochMs > this.#now) this.#now = epochMs;
  }
}

/** True when `clock` can be advanced (has an `advance(ms)` method). */
export function isAdvanceableClock(clock: Clock): clock is AdvanceableClock {
  return typeof (clock as Partial<AdvanceableClock>).advance === 'function';
}
