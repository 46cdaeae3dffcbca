/**
 * What Lambda's asynchronous invocation reports: the invocation records its
 * destinations receive, the error body of a failed attempt, and how one
 * event ended. Built in one place, by the simulator in ./async-invoker.ts.
 */
import type { InvocationResult } from '../../src/testing/invocation.js';
import type { SqsQueueSimulator } from './queue.js';

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
  readonly requestContext: {
    readonly requestId: string;
    readonly functionArn: string;
    readonly condition: 'Success';
    readonly approximateInvokeCount: number;
  };
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

/** How an asynchronous invocation ended, with every attempt's outcome. */
export type AsyncInvocationReport<TEvent, TResult> =
  | {
      readonly outcome: 'succeeded';
      readonly requestId: string;
      readonly attempts: readonly InvocationResult<TResult>['kind'][];
      readonly result: TResult;
      readonly record: AsyncSuccessRecord<TEvent, TResult>;
    }
  | {
      readonly outcome: 'failed';
      readonly requestId: string;
      readonly attempts: readonly InvocationResult<TResult>['kind'][];
      /** The last attempt's error (undefined if the event expired before any attempt). */
      readonly error: unknown;
      readonly record: AsyncFailureRecord<TEvent>;
    };

/**
 * The error body Lambda's Node.js runtime reports for an attempt that did not return.
 *
 * @example
 * ```ts
 * import { invoke } from 'effectively-once/testing';
 * import { lambdaErrorPayload } from './index.js';
 * const result = await invoke(async () => { throw new RangeError('bad amount'); }, {});
 * if (result.kind !== 'returned') console.log(lambdaErrorPayload(result).errorType); // 'RangeError'
 * ```
 */
export function lambdaErrorPayload(result: Exclude<InvocationResult<unknown>, { kind: 'returned' }>): LambdaErrorPayload {
  const requestId = result.context.awsRequestId;
  if (result.kind === 'timed-out') {
    return { errorType: 'Sandbox.Timedout', errorMessage: `RequestId: ${requestId} Error: ${result.error.message}`, trace: [] };
  }
  if (result.kind === 'crashed') {
    return {
      errorType: 'Runtime.ExitError',
      errorMessage: `RequestId: ${requestId} Error: Runtime exited with error: ${result.error.message}`,
      trace: [],
    };
  }
  const { error } = result;
  if (error instanceof Error) {
    return { errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}
