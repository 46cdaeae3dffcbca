/**
 * Errors raised by the testing helpers and the simulators. They have their
 * own root on purpose: a simulated fault stands in for a user's or the
 * runtime's error, so it must never be mistaken for one of the library's own
 * `EffectivelyOnceError`s.
 */

/** Root of the errors the testing helpers raise. */
export class SimulationError extends Error {
  override readonly name: string = 'SimulationError';

  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** The invocation died where `abandon()` or a `CrashPoint` was hit: no middleware `after`/`onError` ran, nothing was acknowledged. */
export class SimulatedCrash extends SimulationError {
  override readonly name = 'SimulatedCrash';
}

/** A transient failure thrown by `flaky()`; carries the key and the attempt. */
export class SimulatedFailure extends SimulationError {
  override readonly name = 'SimulatedFailure';
  /** The key the failure was counted under. */
  readonly key: string;
  /** 1-based attempt number for that key. */
  readonly attempt: number;

  constructor(key: string, attempt: number, options?: { readonly cause?: unknown }) {
    super(`simulated transient failure for "${key}" (attempt ${attempt})`, options);
    this.key = key;
    this.attempt = attempt;
  }
}

/** The handler ran longer than the function timeout. Lambda kills such an invocation, so its result is discarded as if it had thrown. */
export class InvocationTimeoutError extends SimulationError {
  override readonly name = 'InvocationTimeoutError';
  /** The function timeout that was exceeded, in milliseconds. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    // Same wording as the Lambda runtime, so logs read the same locally.
    super(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`);
    this.timeoutMs = timeoutMs;
  }
}
