/**
 * Lambda's asynchronous invocation of one event (how EventBridge calls a
 * target), on the one simulator in ./async-invoker.ts: up to
 * `1 + maxRetries` attempts with the same request id and event, then the
 * on-failure destination gets an invocation record shaped like Lambda's.
 * Retry waits are injectable and default to none.
 */
import type { Clock } from '../core/clock.js';
import { checkOptions, is } from '../core/options.js';
import type { OptionRules } from '../core/options.js';
import { AsyncInvoker, destinationRule } from './async-invoker.js';
import type { AsyncDestination, AsyncFailureRecord, AsyncInvocationReport, AsyncSuccessRecord } from './async-records.js';
import type { LambdaHandler } from './invocation.js';
import { anyValue, clockRule, intIn, required } from './rules.js';

export { lambdaErrorPayload } from './async-records.js';
export type {
  AsyncDestination,
  AsyncFailureRecord,
  AsyncInvocationReport,
  AsyncSuccessRecord,
  LambdaErrorPayload,
} from './async-records.js';

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

const invokeAsyncRules: OptionRules = {
  handler: required(is.fn),
  event: anyValue,
  maxRetries: intIn(0, 2),
  maxEventAgeMs: intIn(60_000, 21_600_000),
  retryDelayMs: is.fn,
  onFailure: destinationRule,
  onSuccess: destinationRule,
  functionName: is.nonEmptyString,
  timeoutMs: intIn(1, 900_000),
  clock: clockRule,
};

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
export async function invokeAsync<TEvent, TResult>(
  options: InvokeAsyncOptions<TEvent, TResult>,
): Promise<AsyncInvocationReport<TEvent, TResult>> {
  checkOptions('invokeAsync', options, invokeAsyncRules);
  const { event, ...rest } = options;
  return new AsyncInvoker<TEvent, TResult>(rest).submit(event);
}
