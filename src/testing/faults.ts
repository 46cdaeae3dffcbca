/**
 * Fault injection for chaos tests: crashes that really abandon an invocation
 * (no middleware `after`/`onError` runs), transient failures per key,
 * virtual-time delays, and a deferred for ordering real races.
 */
import type { Clock } from '../engine/clock.js';
import { isAdvanceableClock } from './clock.js';
import { SimulatedCrash, SimulatedFailure } from './errors.js';
import { checkpoint, invocationKilled, signalCrash } from './invocation.js';
import { checkOptions } from '../engine/options.js';
import type { OptionRules } from '../engine/options.js';
import { intIn, required } from './rules.js';

/**
 * Dies here: returns a promise that never settles, so nothing after the
 * `await` runs, nor the middleware's `after`/`onError`, just as when the
 * Lambda process is killed after the middleware's `before` (the claim).
 * Inside {@link invoke} (or anything built on it) the invocation is
 * reported `crashed` at once, and is dead from this call on; elsewhere the
 * caller's promise simply never settles (use
 * {@link CrashPoint.crashed} to notice it). Work the invocation already
 * started elsewhere (e.g. other records processed concurrently) cannot be
 * killed by JavaScript: it stops at its next {@link checkpoint} (a crash
 * point, a {@link delay}, a request through `injectDynamoDBFaults` or
 * `crashingStore`). What it does before reaching one still happens, so an
 * effect a sibling record applied without its completion is applied again
 * on redelivery, as with a real kill.
 *
 * @example
 * ```ts
 * import { abandon, invoke } from 'effectively-once/testing';
 * const result = await invoke(async (_event: unknown) => { await abandon('killed mid-effect'); }, {});
 * console.log(result.kind); // 'crashed'
 * ```
 */
export function abandon(reason = 'invocation abandoned'): Promise<never> {
  signalCrash(new SimulatedCrash(reason));
  // A promise with no resolver kept anywhere: it never settles and is garbage-collected with the dropped invocation.
  return new Promise<never>(() => undefined);
}

const crashPointRules: OptionRules = { n: required(intIn(0)), times: intIn(1) };

/**
 * A place in handler code where the Lambda may die. The first `after` hits
 * pass; the next `times` hits abandon their invocation; later hits pass
 * again, so the retry of the crashed message can succeed. It is also a
 * {@link checkpoint}: code of an invocation that already crashed or timed
 * out (another record of its batch) stops here, uncounted, as it would with
 * the process gone.
 *
 * @example
 * ```ts
 * import { CrashPoint } from 'effectively-once/testing';
 * const crash = new CrashPoint(1); // second hit crashes
 * const effect = async (orderNo: string): Promise<void> => { await crash.hit(); console.log('paid', orderNo); };
 * void effect('o-1');
 * ```
 */
export class CrashPoint {
  /** Resolves with the crash when the first invocation dies here. */
  readonly crashed: Promise<SimulatedCrash>;
  readonly #after: number;
  readonly #times: number;
  #hits = 0;
  #crashes = 0;
  #onCrash: (crash: SimulatedCrash) => void = () => undefined;

  constructor(after: number, times = 1) {
    checkOptions('crashAfter', { n: after, times }, crashPointRules);
    this.#after = after;
    this.#times = times;
    this.crashed = new Promise((resolve) => {
      this.#onCrash = resolve;
    });
  }

  /** Times this point was reached. */
  get hits(): number {
    return this.#hits;
  }

  /** Invocations abandoned here. */
  get crashes(): number {
    return this.#crashes;
  }

  /** Passes, or abandons the current invocation (see {@link abandon}); never returns in a killed invocation. */
  async hit(): Promise<void> {
    // A leftover of a dead invocation never reached this point in the real process.
    if (invocationKilled()) return checkpoint();
    this.#hits += 1;
    if (this.#hits <= this.#after || this.#crashes >= this.#times) return;
    this.#crashes += 1;
    const reason = `simulated crash at hit ${this.#hits}`;
    this.#onCrash(new SimulatedCrash(reason));
    await abandon(reason);
  }
}

/**
 * A {@link CrashPoint} that lets `n` hits pass, then crashes `times` (default 1) invocations.
 *
 * @example
 * ```ts
 * import { crashAfter, invoke } from 'effectively-once/testing';
 * const crash = crashAfter(1);
 * const handler = async (event: { n: number }): Promise<number> => { await crash.hit(); return event.n; };
 * console.log((await invoke(handler, { n: 1 })).kind); // 'returned'
 * console.log((await invoke(handler, { n: 2 })).kind); // 'crashed'
 * ```
 */
export function crashAfter(n: number, options: { readonly times?: number } = {}): CrashPoint {
  checkOptions('crashAfter', options, { times: intIn(1) });
  return new CrashPoint(n, options.times ?? 1);
}

/** Options of {@link flaky}. */
export interface FlakyOptions {
  /** Calls per key that fail before that key succeeds. */
  readonly failTimes: number;
  /** What to throw: an error, or a factory per key and attempt (default: a `SimulatedFailure`). */
  readonly error?: Error | ((key: string, attempt: number) => unknown);
}

const flakyRules: OptionRules = {
  failTimes: required(intIn(0)),
  error: { expected: 'an Error or a function', check: (v: unknown) => v instanceof Error || typeof v === 'function' },
};

/**
 * A transient fault: for each key, the first `failTimes` calls throw, later ones pass.
 *
 * @example
 * ```ts
 * import { flaky } from 'effectively-once/testing';
 * const transient = flaky({ failTimes: 2 });
 * const charge = transient.wrap(async (orderNo: string) => `charged ${orderNo}`, (orderNo) => orderNo);
 * await charge('o-1').catch(() => 'failed once');
 * ```
 */
export class Flaky {
  readonly #failTimes: number;
  readonly #error: FlakyOptions['error'];
  readonly #attempts = new Map<string, number>();
  #failures = 0;

  constructor(options: FlakyOptions) {
    checkOptions('flaky', options, flakyRules);
    this.#failTimes = options.failTimes;
    this.#error = options.error;
  }

  /** Failures thrown so far, all keys together. */
  get failures(): number {
    return this.#failures;
  }

  /** Calls made so far with `key`. */
  attempts(key: string): number {
    return this.#attempts.get(key) ?? 0;
  }

  /** Counts a call for `key` and throws while that key is within its first `failTimes` calls. */
  hit(key: string): void {
    const attempt = this.attempts(key) + 1;
    this.#attempts.set(key, attempt);
    if (attempt > this.#failTimes) return;
    this.#failures += 1;
    const error = this.#error;
    if (error === undefined) throw new SimulatedFailure(key, attempt);
    throw typeof error === 'function' ? error(key, attempt) : error;
  }

  /** `fn` behind this fault, keyed by `keyOf` of its arguments. */
  wrap<TArgs extends unknown[], TResult>(
    fn: (...args: TArgs) => Promise<TResult> | TResult,
    keyOf: (...args: TArgs) => string,
  ): (...args: TArgs) => Promise<TResult> {
    return async (...args: TArgs): Promise<TResult> => {
      this.hit(keyOf(...args));
      return fn(...args);
    };
  }
}

/**
 * Builds a {@link Flaky} fault.
 *
 * @example
 * ```ts
 * import { flaky } from 'effectively-once/testing';
 * const transient = flaky({ failTimes: 1, error: new Error('ECONNRESET') });
 * try { transient.hit('o-1'); } catch { transient.hit('o-1'); }
 * console.log(transient.attempts('o-1')); // 2
 * ```
 */
export function flaky(options: FlakyOptions): Flaky {
  return new Flaky(options);
}

/**
 * Waits `ms`. With an advanceable clock (e.g. `ManualClock`) it moves that
 * clock forward instead of sleeping ("this step takes `ms`"), then yields to
 * other tasks; concurrent delays on one clock therefore add up. A delay
 * of an invocation that crashed or timed out meanwhile never ends (it is a
 * {@link checkpoint}).
 *
 * @example
 * ```ts
 * import { delay, ManualClock } from 'effectively-once/testing';
 * const clock = new ManualClock();
 * await delay(60_000, clock); // instant; clock is now one minute later
 * ```
 */
export async function delay(ms: number, clock?: Clock): Promise<void> {
  if (!Number.isFinite(ms) || ms < 0) throw new TypeError(`delay: "ms" must be a finite number >= 0, got ${String(ms)}.`);
  if (clock !== undefined && isAdvanceableClock(clock)) {
    clock.advance(ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
  } else {
    await new Promise<void>((resolve) => setTimeout(resolve, ms));
  }
  await checkpoint();
}

/**
 * A promise with its `resolve`/`reject` exposed, to hold one invocation at a
 * chosen point while another runs (real races, in a chosen order).
 *
 * @example
 * ```ts
 * import { Deferred } from 'effectively-once/testing';
 * const claimed = new Deferred<void>();
 * const first = (async () => { await claimed.promise; return 'first finished'; })();
 * claimed.resolve();
 * console.log(await first);
 * ```
 */
export class Deferred<T = void> {
  readonly promise: Promise<T>;
  #resolve: (value: T) => void = () => undefined;
  #reject: (reason: unknown) => void = () => undefined;
  #settled = false;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** True once resolved or rejected. */
  get settled(): boolean {
    return this.#settled;
  }

  resolve(value: T): void {
    this.#settled = true;
    this.#resolve(value);
  }

  reject(reason: unknown): void {
    this.#settled = true;
    this.#reject(reason);
  }
}
