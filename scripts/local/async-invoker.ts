/**
 * Lambda's asynchronous invocation, locally: what EventBridge does to a
 * target function, on the one simulator of it (`AsyncInvoker` in scripts/sim/,
 * the same that `invokeAsync` runs on). This file only adapts it to the local
 * run: the deployed retry count and event age, the local account and region,
 * and the run's counters.
 *
 * Lambda waits about 1 then 2 minutes between attempts; locally the delays
 * are scaled down to milliseconds, the attempt count is the deployed one.
 */
import type { Context } from 'aws-lambda';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import type { AsyncInvokeDefinition } from '../../infra/queues.js';
import { AsyncInvoker as Simulator, type AsyncFailureRecord } from '../sim/index.js';
import type { SourceStats } from './stats.js';

/** The record Lambda sends to an on-failure destination. */
export type { AsyncFailureRecord } from '../sim/index.js';

export interface AsyncInvokerOptions<E> {
  readonly functionName: string;
  readonly handler: (event: E, context: Context) => Promise<unknown>;
  readonly definition: AsyncInvokeDefinition;
  /** Local delay before retry n (index 0 = first retry). */
  readonly retryDelaysMs: readonly number[];
  readonly functionTimeoutMs: number;
  /** Concurrent executions, like the function's concurrency. */
  readonly concurrency: number;
  readonly onFailure: (record: AsyncFailureRecord<E>) => Promise<void>;
  /** Told of each event whose invocation returned (Lambda counts it delivered). */
  readonly onSucceeded?: (event: E) => void;
  readonly stats: SourceStats;
}

export interface AsyncInvoker<E> {
  /** Queues one event, like `Invoke` with `InvocationType: 'Event'` (returns at once). */
  invoke(event: E): void;
  /** Events queued, running or waiting for a retry. */
  pending(): number;
  /** The error that broke the invoker (the destination could not be written), if any. */
  error(): unknown;
  /** Cancels waiting retries; events still in a handler run to completion. */
  stop(): void;
}

/** Creates an async invoker with Lambda's retry semantics, counting into `options.stats`. */
export function createAsyncInvoker<E>(options: AsyncInvokerOptions<E>): AsyncInvoker<E> {
  const { stats, definition, retryDelaysMs } = options;
  const simulator = new Simulator<E, unknown>({
    handler: options.handler,
    functionName: options.functionName,
    timeoutMs: options.functionTimeoutMs,
    maxRetries: definition.maximumRetryAttempts,
    maxEventAgeMs: definition.maximumEventAgeSeconds * 1000,
    retryDelayMs: (retry) => retryDelaysMs[retry - 1] ?? retryDelaysMs.at(-1) ?? 0,
    concurrency: options.concurrency,
    context: { region: LOCAL_REGION, accountId: LOCAL_ACCOUNT, memoryLimitInMB: 1024 },
    observer: {
      attemptStarted: () => {
        stats.invocations += 1;
        stats.delivered += 1;
        stats.inFlight += 1;
      },
      attemptEnded: (_event, result) => {
        stats.inFlight -= 1;
        if (result.kind === 'timed-out') stats.timeouts += 1;
        else if (result.kind === 'crashed') stats.crashes += 1;
        else if (result.kind === 'threw') stats.handlerErrors += 1;
      },
      retrying: () => {
        stats.retried += 1;
      },
    },
    onSuccess: (record) => {
      stats.acknowledged += 1;
      options.onSucceeded?.(record.requestPayload);
    },
    onFailure: async (record) => {
      stats.toDestination += 1;
      await options.onFailure(record);
    },
  });
  return {
    // A destination that cannot be written is kept by `error()`, which the run checks.
    invoke: (event) => void simulator.submit(event).catch(() => undefined),
    pending: () => simulator.pending(),
    error: () => simulator.error(),
    stop: () => simulator.stop(),
  };
}
