import { checkOptions, is } from '../core/options.js';
import type { OptionRules } from '../core/options.js';
import { AsyncInvoker, destinationRule, type AsyncInvokerOptions } from './async-invoker.js';
import type { AsyncInvocationReport } from './async-records.js';
import { anyValue, clockRule, intIn, required } from './rules.js';

export { lambdaErrorPayload } from './async-records.js';
export type {
  AsyncDestination,
  AsyncFailureRecord,
  AsyncInvocationReport,
  AsyncSuccessRecord,
  LambdaErrorPayload,
} from './async-records.js';

/**
 * Options of {@link invokeAsync}: the event, and the simulator's options for
 * one event (one at a time, in the default function's context).
 */
export type InvokeAsyncOptions<TEvent, TResult> = Omit<AsyncInvokerOptions<TEvent, TResult>, 'concurrency' | 'context'> & {
  readonly event: TEvent;
};

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
