import type { Context } from 'aws-lambda';
import type { RecordOutcome } from '../../engine/outcomes.js';
import type { TransactionBuilder } from '../../strategies/transaction/builder.js';
import { remainingTime } from '../../engine/time.js';
import { contextWith, stateOf } from '../../engine/invocation-context.js';
import { disabledTransaction } from '../../strategies/disabled-tx.js';
import { handlerSignal, withSignal, type LeaseKeeper } from '../../engine/heartbeat.js';
import type { OwnedRecord } from '../../engine/settle.js';
import type { EventStrategy } from '../../strategies/types.js';

/** State of one EventBridge invocation, shared by the middleware and `eventBridgeHandler`. */
export interface EventRun {
  readonly consumer: string;
  owned: OwnedRecord;
  readonly startedAt: number;
  /** The strategy's steps: with `commit`, `eventBridgeHandler` runs the handler through it. */
  readonly steps: EventStrategy;
  /** Transaction strategy: how the commit went. */
  committed: RecordOutcome | undefined;
  /** Time kept free at the end of the invocation (ms): a commit is not retried into it. */
  readonly safetyMarginMs: number;
  /** `claim({ heartbeat })`: renews the claim while the handler runs. */
  keeper?: LeaseKeeper;
  /** What a duplicate answered from the stored result returns (the `onReplay` option, or the result itself). */
  readonly replayed: (result: unknown, event: unknown) => Promise<unknown>;
}

/** What an event handler receives besides the event. */
export interface EventContext {
  /** The business key (the event id when no middleware is in front). */
  readonly key: string;
  /** Transaction builder (`strategy: transaction()` only; otherwise using it throws). */
  readonly tx: TransactionBuilder;
  readonly context: Context;
  /**
   * Aborts at Middy's early timeout (`timeoutEarlyInMillis`, with the reason
   * Middy gives), or (its `reason` a `LeaseLostError`) when the lease
   * heartbeat (`claim({ heartbeat })`) finds the claim lost, or cannot renew
   * it for a whole lease: stop before applying the effect.
   */
  readonly signal: AbortSignal;
}

// The run travels with the invocation's own view of the Lambda context
// (contextWith): never a registry keyed by the event or the context, which
// overlapping invocations sharing one context object (local runners, tests,
// Lambda Managed Instances) would read each other's runs from. A parser that
// replaces the event leaves it in place.
const RUN = Symbol("effectively-once: this invocation's event run");

/** The Lambda context as this invocation's handler sees it: the caller's, that also answers this invocation's run to `eventBridgeHandler`. */
export const invocationContext = <C extends object>(context: C, run: EventRun): C => contextWith(context, RUN, run);

const noTx = disabledTransaction(
  'use eventBridgeIdempotency({ strategy: transaction() }) in front of eventBridgeHandler, and no middleware between them that replaces the Lambda context.',
);

/**
 * Wraps an EventBridge handler so it receives `{ key, tx, context }`. With
 * the transaction strategy, the writes added to `tx` commit in one
 * `TransactWriteItems` with the idempotency record when the handler returns;
 * a duplicate returns the first delivery's stored result (through `onReplay` when set).
 *
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { EventBridgeEvent } from 'aws-lambda';
 * import { DynamoDBIdempotencyStore, eventBridgeIdempotency, eventBridgeHandler, transaction } from 'effectively-once';
 *
 * type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; customerId: string; points: number }>;
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBIdempotencyStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<OrderPaid, void>()
 *   .use(eventBridgeIdempotency<OrderPaid>({ store, strategy: transaction(), key: (e) => e.detail.orderNo }))
 *   .handler(eventBridgeHandler<OrderPaid, void>(async (event, { tx }) => {
 *     tx.update({
 *       TableName: 'points',
 *       Key: { pk: `customer#${event.detail.customerId}` },
 *       UpdateExpression: 'ADD points :p',
 *       ExpressionAttributeValues: { ':p': event.detail.points },
 *     });
 *   }));
 * ```
 */
export function eventBridgeHandler<TEvent extends { readonly id?: string }, TResult>(
  fn: (event: TEvent, ctx: EventContext) => Promise<TResult> | TResult,
): (event: TEvent, context: Context, options?: { readonly signal?: AbortSignal }) => Promise<TResult> {
  if (typeof fn !== 'function') throw new TypeError('eventBridgeHandler: the argument must be a function.');
  // `options`: Middy's third argument, `{ signal }`, aborted when it answers at its early timeout.
  return async function eventBridgeHandlerCall(event: TEvent, context: Context, options?: unknown): Promise<TResult> {
    const run = stateOf<EventRun>(context, RUN);
    const commit = run?.steps.commit;
    const middy = handlerSignal(options);
    if (run === undefined || commit === undefined) {
      return fn(event, withSignal({ key: run?.owned.key ?? event.id ?? '', tx: noTx, context }, run?.keeper?.signal, middy));
    }
    const { consumer, owned } = run;
    const timeLeftMs = () => remainingTime(context) - run.safetyMarginMs;
    const handler = async (tx: TransactionBuilder) => fn(event, withSignal({ key: owned.key, tx, context }, middy));
    const outcome = await commit({ ...owned, consumer }, handler, timeLeftMs);
    run.committed = outcome;
    switch (outcome.kind) {
      case 'completed':
        return outcome.result as TResult;
      case 'duplicate':
        return (await run.replayed(outcome.existing.result, event)) as TResult;
      case 'conflict':
        if (outcome.final) return undefined as TResult;
        throw outcome.error;
      default:
        throw 'error' in outcome ? outcome.error : new Error(`Unexpected outcome ${outcome.kind}.`);
    }
  };
}
