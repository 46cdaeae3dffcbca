import { checkOptions } from '../../src/engine/options.js';
import type { OptionRules } from '../../src/engine/options.js';
import { AsyncInvoker, invokerRules, type AsyncInvokerOptions } from './async-invoker.js';
import type { AsyncInvocationReport } from './async-records.js';
import { anyValue } from './rules.js';

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
export type InvokeAsyncOptions<TEvent, TResult> = Omit<AsyncInvokerOptions<TEvent, TResult>, 'concurrency' | 'context' | 'observer'> & {
  readonly event: TEvent;
};

// The simulator's rules, without the options that make no sense for one event.
const { concurrency: _concurrency, context: _context, observer: _observer, ...oneEventRules } = invokerRules;
const invokeAsyncRules: OptionRules = { ...oneEventRules, event: anyValue };

/**
 * Invokes `handler` the way Lambda runs an asynchronous (EventBridge)
 * invocation: up to `1 + maxRetries` attempts, then the on-failure record.
 *
 * @example
 * ```ts
 * import { eventBridgeEvent } from 'effectively-once/testing';
 * import { invokeAsync } from './index.js';
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
