import type { Context } from 'aws-lambda';
import type { RecordOutcome } from '../../engine/outcomes.js';
import type { TransactionBuilder } from '../../strategies/transaction/builder.js';
import { remainingTime } from '../../engine/time.js';
import { contextWith, stateOf } from '../../engine/invocation-context.js';
import { notInTransaction } from '../../batch/runner-link.js';
import { handlerSignal, withSignal, type LeaseKeeper } from '../../engine/heartbeat.js';
import type { OwnedRecord } from '../../engine/settle.js';
import type { EventStrategy } from '../../strategies/types.js';
import type { EffectTrace, EffectWrap, InvocationTrace } from '../../engine/tracing.js';

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
  /** Its trace (the `tracing` option); absent: no tracing. */
  readonly trace?: InvocationTrace | undefined;
  /** Claim strategy: the effect's span, from the claim until `after` (`eventBridgeHandler` makes it the active context). */
  effect?: EffectTrace | undefined;
}

/** What an event handler receives besides the event. */
export interface EventContext {
  /** The business key (the event id when no middleware is in front). */
  readonly key: string;
  readonly context: Context;
  /**
   * Aborts at Middy's early timeout (`timeoutEarlyInMillis`, with the reason
   * Middy gives), or (its `reason` a `LeaseLostError`) when the lease
   * heartbeat (`claim({ heartbeat })`) finds the claim lost, or cannot renew
   * it for a whole lease: stop before applying the effect.
   */
  readonly signal: AbortSignal;
}

/**
 * What a handler of `eventBridgeHandler.inTransaction` receives: the
 * {@link EventContext} and `tx`, whose writes commit in one
 * `TransactWriteItems` with the idempotency record (`strategy: transaction()`).
 */
export interface TransactionEventContext extends EventContext {
  readonly tx: TransactionBuilder;
}

// The run travels with the invocation's own view of the Lambda context
// (contextWith): never a registry keyed by the event or the context, which
// overlapping invocations sharing one context object (local runners, tests,
// Lambda Managed Instances) would read each other's runs from. A parser that
// replaces the event leaves it in place.
const RUN = Symbol("effectively-once: this invocation's event run");

/** The Lambda context as this invocation's handler sees it: the caller's, that also answers this invocation's run to `eventBridgeHandler`. */
export const invocationContext = <C extends object>(context: C, run: EventRun): C => contextWith(context, RUN, run);

const OWNER = 'eventBridgeHandler';

/**
 * Wraps an EventBridge handler so it receives `{ key, context, signal }`
 * besides the event. Behind `eventBridgeIdempotency` a duplicate returns the
 * first delivery's stored result (through `onReplay` when set) without
 * running it. For the transaction strategy use
 * `eventBridgeHandler.inTransaction`, whose handler also gets `tx`; this one
 * under `strategy: transaction()` commits the idempotency record alone.
 *
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import type { EventBridgeEvent } from 'aws-lambda';
 * import { eventBridgeHandler, eventBridgeIdempotency, type IdempotencyStore } from 'effectively-once';
 *
 * type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; email: string }>;
 * declare const store: IdempotencyStore; // a DynamoDBClaimStore
 * declare function sendReceipt(email: string, orderNo: string): Promise<string>;
 *
 * export const handler = middy<OrderPaid, string>()
 *   .use(eventBridgeIdempotency<OrderPaid>({ store, key: (e) => e.detail.orderNo }))
 *   .handler(eventBridgeHandler<OrderPaid, string>(async (event, { signal }) => {
 *     signal.throwIfAborted();
 *     return sendReceipt(event.detail.email, event.detail.orderNo); // a duplicate gets this stored result
 *   }));
 * ```
 */
export function eventBridgeHandler<TEvent extends { readonly id?: string }, TResult>(
  fn: (event: TEvent, ctx: EventContext) => Promise<TResult> | TResult,
): (event: TEvent, context: Context, options?: { readonly signal?: AbortSignal }) => Promise<TResult> {
  if (typeof fn !== 'function') throw new TypeError(`${OWNER}: the argument must be a function.`);
  return eventHandler<TEvent, TResult>(fn, false);
}

/**
 * {@link eventBridgeHandler} for the transaction strategy: the handler is
 * also handed `tx`, a `TransactionBuilder` whose writes commit in one
 * `TransactWriteItems` with the idempotency record when it returns; a
 * duplicate returns the first delivery's stored result (through `onReplay`
 * when set). Only there does a handler get `tx`. Behind a middleware whose
 * strategy is not `transaction()`, or none, it throws a `TypeError` naming
 * both fixes before the handler runs.
 *
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { EventBridgeEvent } from 'aws-lambda';
 * import { DynamoDBIdempotencyStore, eventBridgeHandler, eventBridgeIdempotency, transaction } from 'effectively-once';
 *
 * type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string; customerId: string; points: number }>;
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBIdempotencyStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<OrderPaid, void>()
 *   .use(eventBridgeIdempotency<OrderPaid>({ store, strategy: transaction(), key: (e) => e.detail.orderNo }))
 *   .handler(eventBridgeHandler.inTransaction<OrderPaid, void>(async (event, { tx }) => {
 *     tx.update({
 *       TableName: 'points',
 *       Key: { pk: `customer#${event.detail.customerId}` },
 *       UpdateExpression: 'ADD points :p',
 *       ExpressionAttributeValues: { ':p': event.detail.points },
 *     });
 *   }));
 * ```
 */
function inTransaction<TEvent extends { readonly id?: string }, TResult>(
  fn: (event: TEvent, ctx: TransactionEventContext) => Promise<TResult> | TResult,
): (event: TEvent, context: Context, options?: { readonly signal?: AbortSignal }) => Promise<TResult> {
  if (typeof fn !== 'function') throw new TypeError(`${OWNER}.inTransaction: the argument must be a function.`);
  return eventHandler<TEvent, TResult>(fn, true);
}

eventBridgeHandler.inTransaction = inTransaction;

/** Either handler: `tx` in the context only for `inTransaction` (a `TransactionEventContext` handler). */
type AnyEventHandler<TEvent, TResult> =
  | ((event: TEvent, ctx: EventContext) => Promise<TResult> | TResult)
  | ((event: TEvent, ctx: TransactionEventContext) => Promise<TResult> | TResult);

function eventHandler<TEvent extends { readonly id?: string }, TResult>(
  handler: AnyEventHandler<TEvent, TResult>,
  withTx: boolean,
): (event: TEvent, context: Context, options?: unknown) => Promise<TResult> {
  // Called only with the context its kind takes: `tx` in it exactly when `withTx`.
  const fn = handler as (event: TEvent, ctx: EventContext | TransactionEventContext) => Promise<TResult> | TResult;
  // `options`: Middy's third argument, `{ signal }`, aborted when it answers at its early timeout.
  return async function eventBridgeHandlerCall(event: TEvent, context: Context, options?: unknown): Promise<TResult> {
    const run = stateOf<EventRun>(context, RUN);
    const commit = run?.steps.commit;
    const middy = handlerSignal(options);
    if (withTx && commit === undefined) {
      const unseen = ' (or a middleware between them replaced the Lambda context)';
      throw new TypeError(notInTransaction(OWNER, 'eventBridgeIdempotency', run !== undefined, unseen));
    }
    if (run === undefined || commit === undefined) {
      const call = async () => fn(event, withSignal({ key: run?.owned.key ?? event.id ?? '', context }, run?.keeper?.signal, middy));
      return run?.effect === undefined ? call() : run.effect.within(call);
    }
    const { consumer, owned, trace } = run;
    const timeLeftMs = () => remainingTime(context) - run.safetyMarginMs;
    const base = { key: owned.key, context };
    // Without inTransaction the commit writes the idempotency record alone.
    const committed = (wrap: EffectWrap) =>
      commit(
        { ...owned, consumer },
        async (tx: TransactionBuilder | undefined) =>
          wrap(async () => fn(event, withSignal(withTx && tx !== undefined ? { ...base, tx } : base, middy))),
        timeLeftMs,
      );
    const outcome = await (trace === undefined ? committed((effect) => effect()) : trace.run(owned, committed));
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
