/**
 * Lambda's asynchronous invocation (how EventBridge calls a target),
 * simulated: a failed attempt (error, crash, timeout) is retried up to
 * `maxRetries` times (Lambda: 0..2, default 2) with the same request id and
 * event; then the on-failure destination gets an invocation record shaped
 * like Lambda's. Retry waits are injectable and default to none.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { checkOptions, is } from '../core/options.js';
import type { OptionRule, OptionRules } from '../core/options.js';
import { testingDefaults } from './defaults.js';
import { lambdaContext } from './events.js';
import { delay } from './faults.js';
import { invoke } from './invocation.js';
import type { InvocationResult, LambdaHandler } from './invocation.js';
import { SqsQueueSimulator } from './queue.js';
import { anyValue, clockRule, intIn, required } from './rules.js';

/** The error body Lambda records for a failed attempt. */
export interface LambdaErrorPayload {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace: readonly string[];
}

interface RecordBase<TEvent> {
  readonly version: '1.0';
  /** ISO time the record was written. */
  readonly timestamp: string;
  readonly requestPayload: TEvent;
}

/** Record sent to the on-success destination. */
export interface AsyncSuccessRecord<TEvent, TResult> extends RecordBase<TEvent> {
  readonly requestContext: { readonly requestId: string; readonly functionArn: string; readonly condition: 'Success'; readonly approximateInvokeCount: number };
  readonly responseContext: { readonly statusCode: 200; readonly executedVersion: '$LATEST' };
  readonly responsePayload: TResult;
}

/** Record sent to the on-failure destination. */
export interface AsyncFailureRecord<TEvent> extends RecordBase<TEvent> {
  readonly requestContext: {
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: 'RetriesExhausted' | 'EventAgeExceeded';
    readonly approximateInvokeCount: number;
  };
  readonly responseContext: { readonly statusCode: 200; readonly executedVersion: '$LATEST'; readonly functionError: 'Unhandled' };
  /** Absent when the event expired before any attempt. */
  readonly responsePayload: LambdaErrorPayload | undefined;
}

/** A destination: a standard queue simulator (receives the record as JSON) or a function. */
export type AsyncDestination<TRecord> = SqsQueueSimulator | ((record: TRecord) => void | Promise<void>);

/** Options of {@link invokeAsync}. */
export interface InvokeAsyncOptions<TEvent, TResult> {
  readonly handler: LambdaHandler<TEvent, TResult>;
  readonly event: TEvent;
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
}

/** How an asynchronous invocation ended, with every attempt's outcome. */
export type AsyncInvocationReport<TEvent, TResult> =
  | {
      readonly outcome: 'succeeded';
      readonly requestId: string;
      readonly attempts: readonly InvocationResult<TResult>['outcome'][];
      readonly result: TResult;
      readonly record: AsyncSuccessRecord<TEvent, TResult>;
    }
  | {
      readonly outcome: 'failed';
      readonly requestId: string;
      readonly attempts: readonly InvocationResult<TResult>['outcome'][];
      /** The last attempt's error (undefined if the event expired before any attempt). */
      readonly error: unknown;
      readonly record: AsyncFailureRecord<TEvent>;
    };

/** A destination: a function, or a standard queue (Lambda cannot deliver destination records to FIFO queues). */
const destination: OptionRule = {
  expected: 'a function or a standard SqsQueueSimulator',
  check: (v: unknown) => typeof v === 'function' || (v instanceof SqsQueueSimulator && !v.fifo),
};

const invokeAsyncRules: OptionRules = {
  handler: required(is.fn),
  event: anyValue,
  maxRetries: intIn(0, 2),
  maxEventAgeMs: intIn(60_000, 21_600_000),
  retryDelayMs: is.fn,
  onFailure: destination,
  onSuccess: destination,
  functionName: is.nonEmptyString,
  timeoutMs: intIn(1, 900_000),
  clock: clockRule,
};

/**
 * The error body Lambda's Node.js runtime reports for an attempt that did not return.
 *
 * @example
 * ```ts
 * import { invoke, lambdaErrorPayload } from 'effectively-once/testing';
 * const result = await invoke(async () => { throw new RangeError('bad amount'); }, {});
 * if (result.outcome !== 'returned') console.log(lambdaErrorPayload(result).errorType); // 'RangeError'
 * ```
 */
export function lambdaErrorPayload(result: Exclude<InvocationResult<unknown>, { outcome: 'returned' }>): LambdaErrorPayload {
  const requestId = result.context.awsRequestId;
  if (result.outcome === 'timed-out') {
    return { errorType: 'Sandbox.Timedout', errorMessage: `RequestId: ${requestId} Error: ${result.error.message}`, trace: [] };
  }
  if (result.outcome === 'crashed') {
    return { errorType: 'Runtime.ExitError', errorMessage: `RequestId: ${requestId} Error: Runtime exited with error: ${result.error.message}`, trace: [] };
  }
  const { error } = result;
  if (error instanceof Error) {
    return { errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

async function deliver<TRecord>(destination: AsyncDestination<TRecord> | undefined, record: TRecord): Promise<void> {
  if (destination === undefined) return;
  if (destination instanceof SqsQueueSimulator) destination.send(JSON.stringify(record));
  else await destination(record);
}

/** Each attempt gets the event as Lambda would: freshly deserialized, so a mutation cannot leak into the retry. */
function copyOf<TEvent>(event: TEvent): TEvent {
  return event === undefined ? event : (JSON.parse(JSON.stringify(event)) as TEvent);
}

interface Attempts<TResult> {
  readonly outcomes: InvocationResult<TResult>['outcome'][];
  last: InvocationResult<TResult> | undefined;
  expired: boolean;
}

/** Runs the attempts until one returns, retries are used up, or the event is too old. */
async function attempt<TEvent, TResult>(options: InvokeAsyncOptions<TEvent, TResult>, requestId: string, clock: Clock): Promise<Attempts<TResult>> {
  const state: Attempts<TResult> = { outcomes: [], last: undefined, expired: false };
  const enqueuedAt = clock.now();
  const timeoutMs = options.timeoutMs ?? testingDefaults.timeoutMs;
  const maxAttempts = (options.maxRetries ?? testingDefaults.maxRetries) + 1;
  for (let n = 1; n <= maxAttempts && state.last?.outcome !== 'returned'; n += 1) {
    const wait = n === 1 ? 0 : (options.retryDelayMs?.(n - 1) ?? 0);
    if (wait > 0) await delay(wait, clock);
    if (clock.now() - enqueuedAt > (options.maxEventAgeMs ?? 21_600_000)) {
      state.expired = true;
      break;
    }
    const context = lambdaContext({ functionName: options.functionName ?? testingDefaults.functionName, timeoutMs, clock, awsRequestId: requestId });
    state.last = await invoke(options.handler, copyOf(options.event), { context, timeoutMs, clock });
    state.outcomes.push(state.last.outcome);
  }
  return state;
}

function functionArn(functionName: string): string {
  return `arn:aws:lambda:${testingDefaults.region}:${testingDefaults.accountId}:function:${functionName}:$LATEST`;
}

function failureRecord<TEvent, TResult>(event: TEvent, requestId: string, functionName: string, state: Attempts<TResult>, now: number): AsyncFailureRecord<TEvent> {
  const last = state.last;
  return {
    version: '1.0',
    timestamp: new Date(now).toISOString(),
    requestContext: {
      requestId,
      functionArn: functionArn(functionName),
      condition: state.expired ? 'EventAgeExceeded' : 'RetriesExhausted',
      approximateInvokeCount: state.outcomes.length,
    },
    requestPayload: event,
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: last === undefined || last.outcome === 'returned' ? undefined : lambdaErrorPayload(last),
  };
}

/**
 * Invokes `handler` the way Lambda runs an asynchronous (EventBridge)
 * invocation: up to `1 + maxRetries` attempts, then the on-failure record.
 *
 * @example
 * ```ts
 * import { eventBridgeEvent, invokeAsync } from 'effectively-once/testing';
 * const event = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'o-1' } });
 * const failures: unknown[] = [];
 * const report = await invokeAsync({
 *   event,
 *   handler: async () => { throw new Error('points service down'); },
 *   onFailure: (record) => { failures.push(record); },
 * });
 * console.log(report.outcome, report.attempts.length); // 'failed' 3
 * ```
 */
export async function invokeAsync<TEvent, TResult>(options: InvokeAsyncOptions<TEvent, TResult>): Promise<AsyncInvocationReport<TEvent, TResult>> {
  checkOptions('invokeAsync', options, invokeAsyncRules);
  const clock = options.clock ?? systemClock;
  const functionName = options.functionName ?? testingDefaults.functionName;
  // Lambda keeps one request id across the retries of an asynchronous event.
  const requestId = randomUUID();
  const state = await attempt(options, requestId, clock);
  const attempts = state.outcomes;
  if (state.last?.outcome === 'returned') {
    const record: AsyncSuccessRecord<TEvent, TResult> = {
      version: '1.0',
      timestamp: new Date(clock.now()).toISOString(),
      requestContext: { requestId, functionArn: functionArn(functionName), condition: 'Success', approximateInvokeCount: attempts.length },
      requestPayload: options.event,
      responseContext: { statusCode: 200, executedVersion: '$LATEST' },
      responsePayload: state.last.value,
    };
    await deliver(options.onSuccess, record);
    return { outcome: 'succeeded', requestId, attempts, result: state.last.value, record };
  }
  const record = failureRecord(options.event, requestId, functionName, state, clock.now());
  await deliver(options.onFailure, record);
  return { outcome: 'failed', requestId, attempts, error: state.last?.error, record };
}
