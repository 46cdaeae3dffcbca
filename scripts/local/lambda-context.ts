/**
 * One local Lambda invocation: the testing kit's `invoke` with a context for
 * the local account and region. The context's remaining time runs down with
 * wall time (the library derives claim leases and its deadline check from
 * `getRemainingTimeInMillis()`, so a constant would hide bugs), and a
 * timed-out handler keeps running in the background, which is the harsher
 * case for idempotency (its writes may still land after the retry started).
 */
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import { invoke, lambdaContext, type InvocationResult, type LambdaHandler } from '../../src/testing/index.js';

/**
 * Runs `handler(event, context)` once and reports how it ended: returned,
 * threw, crashed or timed out. `awsRequestId` defaults to a fresh one; the
 * async invoker passes the event's, which Lambda keeps across retries.
 */
export function invokeLocally<E, R>(
  handler: LambdaHandler<E, R>,
  event: E,
  functionName: string,
  timeoutMs: number,
  awsRequestId?: string,
): Promise<InvocationResult<R>> {
  const context = lambdaContext({
    functionName,
    timeoutMs,
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT,
    memoryLimitInMB: 1024,
    ...(awsRequestId === undefined ? {} : { awsRequestId }),
  });
  return invoke(handler, event, { context, timeoutMs });
}
