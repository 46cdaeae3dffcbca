/**
 * `eventBridgeIdempotency`: the Middy middleware for EventBridge-triggered
 * (asynchronously invoked) Lambdas. A duplicate returns the stored result
 * without running the handler; one still in progress throws so Lambda's
 * async retry tries again later (or waits, when asked to).
 */
import type { MiddlewareObj } from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import type { BusinessKey } from '../../engine/keys.js';
import type { AutoMargin } from '../../engine/lease.js';
import { is, type RulesOf } from '../../engine/options.js';
import { eventIdempotency } from './lifecycle.js';
import { waitRule, type WaitOptions, type WaitPolicy } from '../../engine/wait.js';
import {
  commonDefaults,
  commonRules,
  previousRule,
  recordRules,
  resolveMiddlewareOptions,
  type CommonIdempotencyOptions,
} from '../../batch/options.js';
import type { PreviousRecords } from '../../engine/previous.js';
import { defaultClaim } from '../../strategies/claim/steps.js';
import type { EventSource } from '../../engine/source.js';

/** Any EventBridge event. */
export type AnyEventBridgeEvent = EventBridgeEvent<string, unknown>;

/** Options of {@link eventBridgeIdempotency}. */
export interface EventBridgeIdempotencyOptions<TEvent extends AnyEventBridgeEvent = AnyEventBridgeEvent, TResult = unknown>
  extends CommonIdempotencyOptions {
  /** Business key, usually from `detail`. Use `event.id` only on purpose: a re-published event gets a new id. */
  readonly key: (event: TEvent) => BusinessKey | undefined | null;
  /** What must not change under the same key. Default: `detail`. `false`: no check. */
  readonly payload?: ((event: TEvent) => unknown) | false;
  /** An unexpired in-progress duplicate: throw `IdempotencyInProgressError` (default) or wait for its result. */
  readonly inProgress?: 'throw' | 'wait';
  /** Bounds of the wait with `inProgress: 'wait'` (ms). */
  readonly wait?: WaitOptions;
  /** Time kept free when waiting or retrying a cancelled commit (ms). Default: 20 % of the time left, at most 2000. */
  readonly safetyMarginMs?: number;
  /**
   * Called when a duplicate is answered from the stored result (a replay,
   * after a wait, or `eventBridgeHandler`'s transaction-strategy duplicate), with
   * that result (`undefined` with `storeResult: false`) and the duplicate
   * event; its return value is what the caller gets. Not called for a first run.
   */
  readonly onReplay?: (result: TResult, event: TEvent) => TResult | Promise<TResult>;
  /**
   * Switching from AWS Powertools idempotency (`makeHandlerIdempotent`):
   * `powertoolsRecords({...})` from `effectively-once/powertools`. Until its
   * `until`, an event about to run is first looked up in Powertools' table:
   * one Powertools completed replays its stored result, one it still holds
   * throws `IdempotencyInProgressError` (Lambda retries it later). Default:
   * none. See docs/migrating-from-powertools.md.
   */
  readonly previous?: PreviousRecords<TEvent>;
}

/** Defaults of {@link eventBridgeIdempotency}, in one place. */
export const eventBridgeDefaults = {
  ...commonDefaults,
  storeResult: true,
  inProgress: 'throw' as 'throw' | 'wait',
  wait: { maxMs: 30_000, initialDelayMs: 100, maxDelayMs: 2_000 } satisfies WaitPolicy,
  /** Used when `safetyMarginMs` is not given. */
  autoSafetyMargin: { maxMs: 2_000, fraction: 0.2 } satisfies AutoMargin,
  payload: ((event: AnyEventBridgeEvent) => event.detail) as ((event: AnyEventBridgeEvent) => unknown) | false,
};

const NAME = 'eventBridgeIdempotency';

const eventBridgeRules = {
  ...commonRules,
  ...recordRules,
  inProgress: is.oneOf('throw', 'wait'),
  wait: waitRule,
  safetyMarginMs: is.timerMs,
  onReplay: is.fn,
  previous: previousRule,
} satisfies RulesOf<EventBridgeIdempotencyOptions>;

/** EventBridge as a single-event source: everything the lifecycle needs to know about its events. */
const eventBridgeSource: EventSource = {
  name: 'eventbridge',
  id(event) {
    const e = event as Partial<AnyEventBridgeEvent> | null;
    const valid = e !== null && typeof e === 'object' && typeof e.id === 'string' && typeof e['detail-type'] === 'string' && 'detail' in e;
    return valid ? (e.id as string) : { refused: 'not an EventBridge event (expected id, detail-type and detail)' };
  },
};

/**
 * Makes an EventBridge-triggered handler idempotent per business key.
 *
 * A replay is a Middy early response: neither the handler nor any
 * middleware's `after` runs for it (Middy's rule for early responses).
 *
 * Keep Middy's default early-timeout behaviour (it throws a `TimeoutError`;
 * the claim is then left to its lease). A `timeoutEarlyResponse` that
 * returns a value instead makes a cut-short handler look finished to every
 * `after` middleware, this one included.
 *
 * @throws TypeError when an option is unknown or of the wrong type (at build time).
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { EventBridgeEvent } from 'aws-lambda';
 * import { DynamoDBClaimStore, eventBridgeIdempotency } from 'effectively-once';
 *
 * type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<OrderPaid, { sent: boolean }>()
 *   .use(eventBridgeIdempotency<OrderPaid>({ store, consumer: 'mailer', key: (e) => e.detail.orderNo }))
 *   .handler(async () => ({ sent: true }));
 * ```
 */
export function eventBridgeIdempotency<TEvent extends AnyEventBridgeEvent = AnyEventBridgeEvent, TResult = unknown>(
  options: EventBridgeIdempotencyOptions<TEvent, TResult>,
): MiddlewareObj<TEvent, TResult> {
  const config = resolveMiddlewareOptions(NAME, options, eventBridgeRules, eventBridgeDefaults);
  const steps = (config.strategy ?? defaultClaim).event({ store: config.store, storeResult: config.storeResult });
  return eventIdempotency<TEvent, TResult>(NAME, eventBridgeSource, { ...config, steps });
}
