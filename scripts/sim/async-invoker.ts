/**
 * Lambda's asynchronous invocation (how EventBridge calls a target, and what
 * `npm start` runs the points function with), simulated once for both: events
 * are queued and run up to `concurrency` at a time; a failed attempt (error,
 * crash, timeout) is retried up to `maxRetries` times with the same request
 * id, after `retryDelayMs`, while the event is younger than `maxEventAgeMs`;
 * then the on-failure destination gets the invocation record Lambda writes.
 * A waiting retry does not hold a concurrency slot, as on Lambda.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../src/engine/clock.js';
import { systemClock } from '../../src/engine/clock.js';
import { checkOptions, is } from '../../src/engine/options.js';
import type { OptionRule, OptionRules } from '../../src/engine/options.js';
import { isAdvanceableClock } from '../../src/testing/clock.js';
import { simDefaults } from './defaults.js';
import { lambdaContext } from '../../src/testing/events.js';
import type { LambdaContextOptions } from '../../src/testing/events.js';
import { invoke } from '../../src/testing/invocation.js';
import type { InvocationResult, LambdaHandler } from '../../src/testing/invocation.js';
import { SqsQueueSimulator } from './queue.js';
import { clockRule, intIn, required } from '../../src/testing/rules.js';
import { lambdaErrorPayload } from './async-records.js';
import type { AsyncDestination, AsyncFailureRecord, AsyncInvocationReport, AsyncSuccessRecord } from './async-records.js';

/** Told of each attempt, e.g. to keep counters or log why an attempt failed. */
export interface AsyncInvokerObserver<TEvent, TResult> {
  readonly attemptStarted?: (event: TEvent) => void;
  readonly attemptEnded?: (event: TEvent, result: InvocationResult<TResult>) => void;
  /** A failed attempt will be retried after `delayMs`. */
  readonly retrying?: (event: TEvent, delayMs: number) => void;
}

/** Options of {@link AsyncInvoker}. */
export interface AsyncInvokerOptions<TEvent, TResult> {
  readonly handler: LambdaHandler<TEvent, TResult>;
  /** Retries after the first attempt, 0..2 (default 2). */
  readonly maxRetries?: number;
  /** Maximum event age in ms, 60 000..21 600 000 (default 6 h). */
  readonly maxEventAgeMs?: number;
  /** Wait before retry `n` (1-based), in ms; default none. Moves an advanceable clock instead of sleeping. */
  readonly retryDelayMs?: (retry: number) => number;
  readonly onFailure?: AsyncDestination<AsyncFailureRecord<TEvent>>;
  readonly onSuccess?: AsyncDestination<AsyncSuccessRecord<TEvent, TResult>>;
  readonly functionName?: string;
  readonly timeoutMs?: number;
  readonly clock?: Clock;
  /** Events running at once, like the function's reserved concurrency (default 1). */
  readonly concurrency?: number;
  /** Where the function lives, for its Context and ARN. */
  readonly context?: Pick<LambdaContextOptions, 'region' | 'accountId' | 'memoryLimitInMB'>;
  readonly observer?: AsyncInvokerObserver<TEvent, TResult>;
}

/** A destination: a function, or a standard queue (Lambda cannot deliver destination records to FIFO queues). */
export const destinationRule: OptionRule = {
  expected: 'a function or a standard SqsQueueSimulator',
  check: (v: unknown) => typeof v === 'function' || (v instanceof SqsQueueSimulator && !v.fifo),
};

/** Lambda's default and largest maximum event age: 6 hours. */
const MAX_EVENT_AGE_MS = 21_600_000;

/** Rules of {@link AsyncInvokerOptions} (`invokeAsync` takes them for one event). */
export const invokerRules: OptionRules = {
  handler: required(is.fn),
  maxRetries: intIn(0, 2),
  maxEventAgeMs: intIn(60_000, 21_600_000),
  retryDelayMs: is.fn,
  onFailure: destinationRule,
  onSuccess: destinationRule,
  functionName: is.nonEmptyString,
  timeoutMs: intIn(1, 900_000),
  clock: clockRule,
  concurrency: intIn(1, 1000),
  context: is.object,
  observer: is.object,
};

async function deliver<TRecord>(destination: AsyncDestination<TRecord> | undefined, record: TRecord): Promise<void> {
  if (destination === undefined) return;
  if (destination instanceof SqsQueueSimulator) destination.send(JSON.stringify(record));
  else await destination(record);
}

/** Each attempt gets the event as Lambda would: freshly deserialized, so a mutation cannot leak into the retry. */
function copyOf<TEvent>(event: TEvent): TEvent {
  return event === undefined ? event : (JSON.parse(JSON.stringify(event)) as TEvent);
}

interface Job<TEvent, TResult> {
  readonly event: TEvent;
  readonly requestId: string;
  readonly enqueuedAt: number;
  readonly outcomes: InvocationResult<TResult>['kind'][];
  last: InvocationResult<TResult> | undefined;
  expired: boolean;
  readonly resolve: (report: AsyncInvocationReport<TEvent, TResult>) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Lambda's asynchronous invocation queue for one function.
 *
 * @example
 * ```ts
 * import { AsyncInvoker } from './index.js';
 * import { ManualClock } from 'effectively-once/testing';
 * const clock = new ManualClock();
 * const failures: unknown[] = [];
 * const invoker = new AsyncInvoker<{ orderNo: string }, void>({
 *   handler: async () => { throw new Error('points service down'); },
 *   retryDelayMs: (retry) => retry * 60_000,
 *   onFailure: (record) => { failures.push(record); },
 *   clock,
 * });
 * const report = await invoker.submit({ orderNo: 'o-1' });
 * console.log(report.outcome, report.attempts.length, failures.length); // 'failed' 3 1
 * ```
 */
export class AsyncInvoker<TEvent, TResult> {
  readonly #options: AsyncInvokerOptions<TEvent, TResult>;
  readonly #clock: Clock;
  readonly #ready: Job<TEvent, TResult>[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  #running = 0;
  #stopped = false;
  #failure: { readonly error: unknown } | undefined;

  constructor(options: AsyncInvokerOptions<TEvent, TResult>) {
    checkOptions('AsyncInvoker', options, invokerRules);
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Queues one event, like `Invoke` with `InvocationType: 'Event'`; resolves
   * when it succeeded or its failure record was delivered, and rejects when
   * a destination could not be written. After {@link stop} nothing new
   * starts, and the events dropped by it never settle.
   */
  submit(event: TEvent): Promise<AsyncInvocationReport<TEvent, TResult>> {
    return new Promise((resolve, reject) => {
      if (this.#stopped) return;
      // Lambda keeps one request id across the retries of an asynchronous event.
      this.#ready.push({
        event,
        requestId: randomUUID(),
        enqueuedAt: this.#clock.now(),
        outcomes: [],
        last: undefined,
        expired: false,
        resolve,
        reject,
      });
      this.#pump();
    });
  }

  /** Events queued, running or waiting for a retry. */
  pending(): number {
    return this.#ready.length + this.#running + this.#timers.size;
  }

  /** The first error that broke an event's delivery (a destination could not be written), if any. */
  error(): unknown {
    return this.#failure?.error;
  }

  /** Drops queued events and waiting retries; events in a handler run to completion. */
  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#ready.length = 0;
  }

  #pump(): void {
    while (this.#running < (this.#options.concurrency ?? 1) && this.#ready.length > 0) {
      const job = this.#ready.shift() as Job<TEvent, TResult>;
      this.#running += 1;
      // The slot is free before the caller hears of the event: `pending()` is 0 once the last one settled.
      this.#attempt(job).then(
        (report) => {
          this.#release();
          if (report !== undefined) job.resolve(report);
        },
        (error: unknown) => {
          this.#failure ??= { error };
          this.#release();
          job.reject(error);
        },
      );
    }
  }

  #release(): void {
    this.#running -= 1;
    this.#pump();
  }

  /** One attempt; resolves the event's report when it is settled, undefined when a retry is scheduled. */
  async #attempt(job: Job<TEvent, TResult>): Promise<AsyncInvocationReport<TEvent, TResult> | undefined> {
    const o = this.#options;
    if (this.#clock.now() - job.enqueuedAt > (o.maxEventAgeMs ?? MAX_EVENT_AGE_MS)) {
      job.expired = true;
      return this.#finish(job);
    }
    const timeoutMs = o.timeoutMs ?? simDefaults.timeoutMs;
    const context = lambdaContext({
      ...o.context,
      functionName: this.#functionName(),
      timeoutMs,
      clock: this.#clock,
      awsRequestId: job.requestId,
    });
    o.observer?.attemptStarted?.(job.event);
    job.last = await invoke(o.handler, copyOf(job.event), { context, timeoutMs, clock: this.#clock });
    job.outcomes.push(job.last.kind);
    o.observer?.attemptEnded?.(job.event, job.last);
    if (job.last.kind === 'returned' || job.outcomes.length > (o.maxRetries ?? simDefaults.maxRetries)) return this.#finish(job);
    const wait = o.retryDelayMs?.(job.outcomes.length) ?? 0;
    o.observer?.retrying?.(job.event, wait);
    this.#later(job, wait);
    return undefined;
  }

  /** Requeues a job after `wait`: on an advanceable clock the clock moves and the retry follows at once. */
  #later(job: Job<TEvent, TResult>, wait: number): void {
    const advanceable = isAdvanceableClock(this.#clock);
    if (advanceable && wait > 0) this.#clock.advance(wait);
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        this.#ready.push(job);
        this.#pump();
      },
      advanceable ? 0 : wait,
    );
    this.#timers.add(timer);
  }

  #functionName(): string {
    return this.#options.functionName ?? simDefaults.functionName;
  }

  #functionArn(): string {
    const region = this.#options.context?.region ?? simDefaults.region;
    const account = this.#options.context?.accountId ?? simDefaults.accountId;
    return `arn:aws:lambda:${region}:${account}:function:${this.#functionName()}:$LATEST`;
  }

  async #finish(job: Job<TEvent, TResult>): Promise<AsyncInvocationReport<TEvent, TResult>> {
    const { requestId, outcomes: attempts, last } = job;
    const base = { version: '1.0', timestamp: new Date(this.#clock.now()).toISOString(), requestPayload: job.event } as const;
    const context = { requestId, functionArn: this.#functionArn(), approximateInvokeCount: attempts.length };
    if (last?.kind === 'returned') {
      const record: AsyncSuccessRecord<TEvent, TResult> = {
        ...base,
        requestContext: { ...context, condition: 'Success' },
        responseContext: { statusCode: 200, executedVersion: '$LATEST' },
        responsePayload: last.value,
      };
      await deliver(this.#options.onSuccess, record);
      return { outcome: 'succeeded', requestId, attempts, result: last.value, record };
    }
    const record: AsyncFailureRecord<TEvent> = {
      ...base,
      requestContext: { ...context, condition: job.expired ? 'EventAgeExceeded' : 'RetriesExhausted' },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: last === undefined ? undefined : lambdaErrorPayload(last),
    };
    await deliver(this.#options.onFailure, record);
    return { outcome: 'failed', requestId, attempts, error: last?.error, record };
  }
}
