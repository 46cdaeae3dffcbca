/**
 * A Lambda `Context` for one local invocation, with a real countdown: the
 * library derives claim leases and its deadline check from
 * `getRemainingTimeInMillis()`, so a constant would hide bugs.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LOCAL_REGION } from '../../infra/dynamodb-local.js';

const ACCOUNT = '000000000000';

function unsupported(name: string): () => never {
  return () => {
    throw new Error(`context.${name}() is the pre-async callback API; local handlers must return a promise.`);
  };
}

/** A context whose remaining time runs down from `timeoutMs` as wall time passes. */
export function createLambdaContext(functionName: string, timeoutMs: number, now: () => number = Date.now): Context {
  const deadline = now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${process.pid}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}

/** The outcome of running a handler under a Lambda timeout. */
export type Invocation<R> =
  | { readonly kind: 'returned'; readonly value: R; readonly durationMs: number }
  | { readonly kind: 'threw'; readonly error: unknown; readonly durationMs: number }
  | { readonly kind: 'timed-out'; readonly durationMs: number };

/**
 * Runs `handler(event, context)` the way Lambda reports it: a return value, an
 * error, or a timeout. On timeout Lambda freezes the sandbox mid-flight; here
 * the promise keeps running in the background, which is the harsher case for
 * idempotency (its writes may still land after the retry started).
 */
export async function invokeWithTimeout<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  event: E,
  functionName: string,
  timeoutMs: number,
): Promise<Invocation<R>> {
  const started = Date.now();
  const context = createLambdaContext(functionName, timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const result = await Promise.race([handler(event, context).then((value) => ({ value })), timeout]);
    const durationMs = Date.now() - started;
    return result === 'timeout' ? { kind: 'timed-out', durationMs } : { kind: 'returned', value: result.value, durationMs };
  } catch (error) {
    return { kind: 'threw', error, durationMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}
