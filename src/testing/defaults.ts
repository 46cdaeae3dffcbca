/**
 * Defaults of the simulators, in one place. They are AWS's own defaults where
 * AWS has one (Lambda timeout 3 s, SQS visibility 30 s, async retries 2), so a
 * test that sets nothing behaves like a freshly created function and queue.
 *
 * @example
 * ```ts
 * import { testingDefaults } from './defaults.js';
 * console.log(testingDefaults.visibilityTimeoutMs / testingDefaults.timeoutMs); // 10 (AWS advises >= 6)
 * ```
 */
export const testingDefaults = {
  region: 'eu-west-1',
  accountId: '123456789012',
  queueName: 'test-queue',
  functionName: 'test-function',
  /** Lambda's default function timeout. */
  timeoutMs: 3_000,
  memoryLimitInMB: 128,
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
  /** Sender of simulated messages (an IAM user id shape). */
  senderId: 'AIDAEXAMPLESENDER0001',
} as const;

/**
 * Lambda's documented waits before the 1st and 2nd async retry (1 min, then
 * 2 min). Pass `(attempt) => lambdaAsyncRetryDelaysMs[attempt - 1] ?? 0` to
 * `invokeAsync` to reproduce them on a `ManualClock`.
 *
 * @example
 * ```ts
 * import { lambdaAsyncRetryDelaysMs } from 'effectively-once/testing';
 * console.log(lambdaAsyncRetryDelaysMs); // [60000, 120000]
 * ```
 */
export const lambdaAsyncRetryDelaysMs: readonly number[] = [60_000, 120_000];
