/**
 * Lambda's asynchronous invocation, locally: what EventBridge does to a
 * target function. The event is queued; a failed attempt (thrown error,
 * crash or timeout) is retried up to `maximumRetryAttempts` times after a delay; an
 * event that still fails, or grows older than `maximumEventAgeSeconds`, goes
 * to the on-failure destination as an invocation record.
 *
 * Lambda waits about 1 then 2 minutes between attempts; locally the delays
 * are scaled down to milliseconds, the attempt count is the deployed one.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import type { AsyncInvokeDefinition } from '../../infra/queues.js';
import { lambdaErrorPayload, type AsyncFailureRecord, type InvocationResult } from '../../src/testing/index.js';
import { invokeLocally } from './lambda-context.js';
import type { SourceStats } from './stats.js';

/** The record Lambda sends to an on-failure destination. */
export type { AsyncFailureRecord } from '../../src/testing/index.js';

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

interface Job<E> {
  readonly event: E;
  readonly requestId: string;
  readonly enqueuedAt: number;
  attempts: number;
}

/** The record of an event that failed for good. */
function failureRecord<E>(
  job: Job<E>,
  functionName: string,
  condition: AsyncFailureRecord<E>['requestContext']['condition'],
  last: Exclude<InvocationResult<unknown>, { outcome: 'returned' }>,
): AsyncFailureRecord<E> {
  return {
    version: '1.0',
    timestamp: new Date().toISOString(),
    requestContext: {
      requestId: job.requestId,
      functionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${functionName}:$LATEST`,
      condition,
      approximateInvokeCount: job.attempts,
    },
    requestPayload: job.event,
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: lambdaErrorPayload(last),
  };
}

class LocalAsyncInvoker<E> implements AsyncInvoker<E> {
  readonly #options: AsyncInvokerOptions<E>;
  readonly #ready: Job<E>[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  #running = 0;
  #stopped = false;
  #failure: { readonly error: unknown } | undefined;

  constructor(options: AsyncInvokerOptions<E>) {
    this.#options = options;
  }

  invoke(event: E): void {
    if (this.#stopped) return; // shutting down: nothing new starts
    this.#ready.push({ event, requestId: randomUUID(), enqueuedAt: Date.now(), attempts: 0 });
    this.#pump();
  }

  pending(): number {
    return this.#ready.length + this.#running + this.#timers.size;
  }

  error(): unknown {
    return this.#failure?.error;
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#ready.length = 0;
  }

  #pump(): void {
    while (this.#running < this.#options.concurrency && this.#ready.length > 0) {
      const job = this.#ready.shift() as Job<E>;
      this.#running += 1;
      this.#run(job)
        .catch((error: unknown) => {
          this.#failure ??= { error };
        })
        .finally(() => {
          this.#running -= 1;
          this.#pump();
        });
    }
  }

  async #run(job: Job<E>): Promise<void> {
    const { stats, handler, functionName, functionTimeoutMs } = this.#options;
    job.attempts += 1;
    stats.invocations += 1;
    stats.delivered += 1;
    stats.inFlight += 1;
    const outcome = await invokeLocally(handler, job.event, functionName, functionTimeoutMs, job.requestId);
    stats.inFlight -= 1;
    if (outcome.outcome === 'returned') {
      stats.acknowledged += 1;
      this.#options.onSucceeded?.(job.event);
      return;
    }
    if (outcome.outcome === 'timed-out') stats.timeouts += 1;
    else if (outcome.outcome === 'crashed') stats.crashes += 1;
    else stats.handlerErrors += 1;
    await this.#afterFailure(job, outcome);
  }

  async #afterFailure(job: Job<E>, last: Exclude<InvocationResult<unknown>, { outcome: 'returned' }>): Promise<void> {
    const { definition, stats, retryDelaysMs } = this.#options;
    const tooOld = Date.now() - job.enqueuedAt > definition.maximumEventAgeSeconds * 1000;
    if (job.attempts > definition.maximumRetryAttempts || tooOld) {
      stats.toDestination += 1;
      const condition = tooOld ? 'EventAgeExceeded' : 'RetriesExhausted';
      await this.#options.onFailure(failureRecord(job, this.#options.functionName, condition, last));
      return;
    }
    stats.retried += 1;
    const delay = retryDelaysMs[job.attempts - 1] ?? retryDelaysMs.at(-1) ?? 0;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#ready.push(job);
      this.#pump();
    }, delay);
    this.#timers.add(timer);
  }
}

/** Creates an async invoker with Lambda's retry semantics. */
export function createAsyncInvoker<E>(options: AsyncInvokerOptions<E>): AsyncInvoker<E> {
  return new LocalAsyncInvoker(options);
}
