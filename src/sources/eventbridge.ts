/**
 * `eventBridgeIdempotency`: the Middy middleware for EventBridge-triggered
 * (asynchronously invoked) Lambdas. A duplicate returns the stored result
 * without running the handler; one still in progress throws so Lambda's
 * async retry tries again later (or waits, when asked to).
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { systemClock } from '../core/clock.js';
import { IdempotencyInProgressError } from '../core/errors.js';
import type { BusinessKey } from '../core/keys.js';
import { leaseDuration, safetyMargin, type AutoMargin } from '../core/lease.js';
import { is, isPlainObject, type OptionRule, type RulesOf } from '../core/options.js';
import type { RecordOutcome } from '../core/outcomes.js';
import { remainingTime } from '../lifecycle/time.js';
import { waitForOwner, type WaitPolicy } from '../lifecycle/in-progress-wait.js';
import { attachEventRun, type EventRun } from '../lifecycle/event-run.js';
import { batchLine } from '../lifecycle/log.js';
import { payloadMismatch, prepare } from '../lifecycle/prepare.js';
import { releaseClaim, settleClaim, type OwnedRecord } from '../lifecycle/settle.js';
import {
  commonDefaults,
  commonRules,
  consumerName,
  recordRules,
  resolveMiddlewareOptions,
  type CommonIdempotencyOptions,
} from '../lifecycle/options.js';
import type { ConflictPolicy } from '../lifecycle/transaction-commit.js';

/** Any EventBridge event. */
export type AnyEventBridgeEvent = EventBridgeEvent<string, unknown>;

/** Options of {@link eventBridgeIdempotency}. */
export interface EventBridgeIdempotencyOptions<TEvent extends AnyEventBridgeEvent = AnyEventBridgeEvent>
  extends CommonIdempotencyOptions {
  /** Business key, usually from `detail`. Use `event.id` only on purpose: a re-published event gets a new id. */
  readonly key: (event: TEvent) => BusinessKey | undefined | null;
  /** What must not change under the same key. Default: `detail`. `false`: no check. */
  readonly payload?: ((event: TEvent) => unknown) | false;
  /** An unexpired in-progress duplicate: throw `IdempotencyInProgressError` (default) or wait for its result. */
  readonly inProgress?: 'throw' | 'wait';
  /** Bounds of the wait with `inProgress: 'wait'` (ms). */
  readonly wait?: Partial<WaitPolicy>;
  /** Transaction strategy: a failed business condition throws (`fail`, default) or returns undefined (`acknowledge`). */
  readonly onConflict?: ConflictPolicy;
  /** Time kept free when waiting or retrying a cancelled commit (ms). Default: 20 % of the time left, at most 2000. */
  readonly safetyMarginMs?: number;
}

/**
 * Defaults of {@link eventBridgeIdempotency}, in one place.
 *
 * @example
 * ```ts
 * import { eventBridgeDefaults } from 'effectively-once';
 * console.log(eventBridgeDefaults.storeResult, eventBridgeDefaults.wait.maxMs); // true 30000
 * ```
 */
export const eventBridgeDefaults = {
  ...commonDefaults,
  storeResult: true,
  inProgress: 'throw' as 'throw' | 'wait',
  wait: { maxMs: 30_000, initialDelayMs: 100, maxDelayMs: 2_000 } satisfies WaitPolicy,
  onConflict: 'fail' as ConflictPolicy,
  /** Used when `safetyMarginMs` is not given. */
  autoSafetyMargin: { maxMs: 2_000, fraction: 0.2 } satisfies AutoMargin,
  payload: ((event: AnyEventBridgeEvent) => event.detail) as ((event: AnyEventBridgeEvent) => unknown) | false,
};

const NAME = 'eventBridgeIdempotency';

const waitRule: OptionRule = {
  partial: true,
  expected: 'an object with maxMs, initialDelayMs, maxDelayMs (positive numbers)',
  check: (v: unknown) =>
    isPlainObject(v) &&
    Object.entries(v).every(
      ([k, n]) => ['maxMs', 'initialDelayMs', 'maxDelayMs'].includes(k) && (n === undefined || (typeof n === 'number' && n > 0)),
    ),
};

const eventBridgeRules = {
  ...commonRules,
  ...recordRules,
  inProgress: is.oneOf('throw', 'wait'),
  wait: waitRule,
  onConflict: is.oneOf('fail', 'acknowledge'),
  safetyMarginMs: is.nonNegativeMs,
} satisfies RulesOf<EventBridgeIdempotencyOptions>;

function assertEventBridgeEvent(event: unknown): asserts event is AnyEventBridgeEvent {
  const e = event as Partial<AnyEventBridgeEvent> | null;
  if (e === null || typeof e !== 'object' || typeof e.id !== 'string' || typeof e['detail-type'] !== 'string' || !('detail' in e)) {
    throw new TypeError(`${NAME}: the event is not an EventBridge event (expected id, detail-type and detail).`);
  }
}

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
 * import { DynamoDBIdempotencyStore, eventBridgeIdempotency } from 'effectively-once';
 *
 * type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBIdempotencyStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<OrderPaid, { sent: boolean }>()
 *   .use(eventBridgeIdempotency<OrderPaid>({ store, consumer: 'mailer', key: (e) => e.detail.orderNo }))
 *   .handler(async () => ({ sent: true }));
 * ```
 */
export function eventBridgeIdempotency<TEvent extends AnyEventBridgeEvent = AnyEventBridgeEvent, TResult = unknown>(
  options: EventBridgeIdempotencyOptions<TEvent>,
): MiddlewareObj<TEvent, TResult> {
  const config = resolveMiddlewareOptions<EventBridgeIdempotencyOptions<TEvent>, typeof eventBridgeDefaults>(
    NAME,
    options,
    eventBridgeRules,
    eventBridgeDefaults,
  );
  const { store, logger } = config;
  const payload = config.payload as ((event: TEvent) => unknown) | false;
  const runs = new WeakMap<object, EventRun>();

  function log(run: EventRun, outcome: RecordOutcome, replay = false): void {
    if (logger === false) return;
    const line = batchLine('eventbridge', run.consumer, config.strategy, [outcome], () => run.owned.id, Date.now() - run.startedAt);
    logger(replay ? { ...line, records: line.records.map((r) => ({ ...r, replay: true })) } : line);
  }

  /** Claims, replays or throws; resolves the replayed result when the handler must not run. */
  async function claimOrReplay(request: Request<TEvent, TResult>, run: EventRun): Promise<{ replay: unknown } | undefined> {
    const left = remainingTime(request.context);
    const leaseMs = leaseDuration(left, config.lease);
    // One deadline for the whole wait, however many claim-and-wait rounds it takes.
    const waitUntil = Date.now() + Math.min(config.wait.maxMs, left - run.safetyMarginMs);
    for (;;) {
      const claim = await store.claim({ ...run.owned, consumer: run.consumer, leaseMs });
      if (claim.kind === 'claimed') {
        run.owned = { ...run.owned, token: claim.token };
        return undefined;
      }
      const message = `Key already recorded under ${run.owned.id} with a different payload.`;
      const mismatch = payloadMismatch(run.owned.payloadHash, claim.existing.payloadHash, message, { key: run.owned.key, existing: claim.existing });
      if (mismatch !== undefined) throw mismatch;
      if (claim.kind === 'completed') {
        log(run, { kind: 'duplicate', messageId: run.owned.messageId, key: run.owned.key, existing: claim.existing, fromCache: claim.fromCache }, true);
        return { replay: claim.existing.result };
      }
      const inProgress = new IdempotencyInProgressError(`${run.owned.id} is being processed by another invocation.`, {
        key: run.owned.key,
        existing: claim.existing,
      });
      const budget = waitUntil - Date.now();
      if (config.inProgress === 'throw' || budget <= 0) throw inProgress;
      const waited = await waitForOwner(store, run.owned.id, claim.existing, budget, config.wait, systemClock);
      if (waited.kind === 'timed-out') throw inProgress;
      if (waited.kind === 'completed') {
        log(run, { kind: 'duplicate', messageId: run.owned.messageId, key: run.owned.key, existing: waited.record, fromCache: false }, true);
        return { replay: waited.record.result };
      }
    }
  }

  async function eventBridgeIdempotencyBefore(request: Request<TEvent, TResult>): Promise<void> {
    assertEventBridgeEvent(request.event);
    const consumer = consumerName(NAME, config.consumer, request.context?.functionName);
    const prepared = prepare(request.event, { key: config.key, payload });
    if (prepared instanceof Error) throw prepared;
    const owned: OwnedRecord = {
      messageId: request.event.id,
      key: prepared.key,
      id: store.recordId(consumer, prepared.key),
      ...(prepared.payloadHash === undefined ? {} : { payloadHash: prepared.payloadHash }),
    };
    const safetyMarginMs = safetyMargin(remainingTime(request.context), options.safetyMarginMs, config.autoSafetyMargin);
    const run: EventRun = { consumer, owned, startedAt: Date.now(), transactional: config.strategy === 'transaction', committed: undefined, storeResult: config.storeResult, onConflict: config.onConflict, store, safetyMarginMs };
    if (!run.transactional) {
      const replay = await claimOrReplay(request, run);
      if (replay !== undefined) {
        request.earlyResponse = replay.replay as TResult;
        return;
      }
    }
    runs.set(request, run);
    attachEventRun(request.event, request.context, run);
  }

  async function eventBridgeIdempotencyAfter(request: Request<TEvent, TResult>): Promise<void> {
    const run = runs.get(request);
    if (run === undefined) return;
    runs.delete(request);
    if (run.transactional) {
      if (run.committed === undefined) {
        throw new TypeError(`${NAME}: strategy "transaction" needs the handler wrapped in handleEvent().`);
      }
      log(run, run.committed);
      return;
    }
    const outcome = await settleClaim(store, run.owned, { kind: 'succeeded', result: request.response }, config.storeResult);
    log(run, outcome);
    if (outcome.kind !== 'completed' && 'error' in outcome) throw outcome.error;
  }

  async function eventBridgeIdempotencyOnError(request: Request<TEvent, TResult>): Promise<void> {
    const run = runs.get(request);
    if (run === undefined) return;
    runs.delete(request);
    // After Middy's early timeout the handler may still be running: leave the
    // claim to its lease rather than let a retry run the effect alongside it.
    const timedOut = (request.error as { name?: unknown } | null | undefined)?.name === 'TimeoutError';
    if (!run.transactional && !timedOut) await releaseClaim(store, run.owned, request.error);
    log(run, run.committed ?? { kind: 'failed', messageId: run.owned.messageId, key: run.owned.key, error: request.error });
    // Returning nothing lets Middy rethrow the original error: Lambda's async retry takes over.
  }

  return {
    before: eventBridgeIdempotencyBefore,
    after: eventBridgeIdempotencyAfter,
    onError: eventBridgeIdempotencyOnError,
    name: NAME,
  };
}
