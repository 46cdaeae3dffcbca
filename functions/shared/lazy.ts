/**
 * Builds a Lambda handler on its first invocation, then reuses it.
 *
 * Why not at import: tests and the local runner import a function's module
 * for its factory, without Lambda's environment variables; building at
 * import would throw there. In Lambda the only difference is that the first
 * invocation pays the (small) construction cost, and a missing variable
 * fails that invocation loudly instead of the init phase.
 */
import type { Context } from 'aws-lambda';

/** A Lambda handler in its promise form (middy handlers are callable this way). */
export type AsyncHandler<TEvent, TResult> = (event: TEvent, context: Context) => Promise<TResult>;

/**
 * @example
 * ```ts
 * import { createPaymentsHandler, paymentsDepsFromEnv } from '../payments.js';
 * import { lazyHandler } from './lazy.js';
 * export const handler = lazyHandler(() => createPaymentsHandler(paymentsDepsFromEnv()));
 * ```
 */
export function lazyHandler<TEvent, TResult>(build: () => AsyncHandler<TEvent, TResult>): AsyncHandler<TEvent, TResult> {
  let built: AsyncHandler<TEvent, TResult> | undefined;
  return (event, context) => {
    built ??= build();
    return built(event, context);
  };
}
