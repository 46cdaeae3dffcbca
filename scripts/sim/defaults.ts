import { testingDefaults } from '../../src/testing/defaults.js';

/**
 * Defaults of the simulators, in one place: the testing kit's (region,
 * account, function timeout) and the queue's, mapping's and async invoker's.
 * They are AWS's own defaults where AWS has one (SQS visibility 30 s, async
 * retries 2), so a test that sets nothing behaves like a freshly created
 * function and queue.
 *
 * @example
 * ```ts
 * import { simDefaults } from './defaults.js';
 * console.log(simDefaults.visibilityTimeoutMs / simDefaults.timeoutMs); // 10 (AWS advises >= 6)
 * ```
 */
export const simDefaults = {
  ...testingDefaults,
  /** SQS's default visibility timeout. */
  visibilityTimeoutMs: 30_000,
  /** FIFO deduplication interval (fixed by SQS). */
  deduplicationWindowMs: 5 * 60_000,
  /** Lambda's event source mapping default batch size for SQS. */
  batchSize: 10,
  /** Lambda's default retry attempts for asynchronous invocation. */
  maxRetries: 2,
  /** Polls `drain()` makes at most before giving up. */
  maxPolls: 10_000,
} as const;

/**
 * Lambda's documented waits before the 1st and 2nd async retry (1 min, then
 * 2 min). Pass `(attempt) => lambdaAsyncRetryDelaysMs[attempt - 1] ?? 0` to
 * `invokeAsync` to reproduce them on a `ManualClock`.
 *
 * @example
 * ```ts
 * import { lambdaAsyncRetryDelaysMs } from './defaults.js';
 * console.log(lambdaAsyncRetryDelaysMs); // [60000, 120000]
 * ```
 */
export const lambdaAsyncRetryDelaysMs: readonly number[] = [60_000, 120_000];
