/**
 * The single-event lifecycle as a Middy middleware, for any {@link EventSource}
 * (EventBridge, asynchronously invoked): claim (or replay, or wait for an
 * in-progress owner) before the handler, settle the claim once after it, and
 * log one line. A duplicate returns the stored result without running the
 * handler; a failure is thrown so Lambda's async retry tries again.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import { systemClock } from '../engine/clock.js';
import { IdempotencyInProgressError, InvalidRecordError } from '../engine/errors.js';
import { leaseDuration, safetyMargin } from '../engine/lease.js';
import type { RecordOutcome } from '../engine/outcomes.js';
import { attachEventRun, type EventRun } from './handle-event.js';
import { waitForOwner, type WaitPolicy } from '../engine/wait.js';
import { heartbeatPlan, keepLease } from '../engine/heartbeat.js';
import { batchLine, safeLog } from '../observe/log.js';
import { metricsSink, safeMetrics } from '../observe/metrics.js';
import { consumerName, type LifecycleConfig } from '../engine/middleware-options.js';
import { payloadMismatch, prepare } from '../engine/prepare.js';
import { releaseClaim, settleClaim, type OwnedRecord } from '../engine/settle.js';
import type { EventSource } from '../sources/source.js';
import { remainingTime } from '../engine/time.js';

/** The resolved options a single-event middleware runs with (see `resolveMiddlewareOptions`). */
export interface EventConfig<TEvent, TResult = unknown> extends LifecycleConfig<TEvent> {
  readonly inProgress: 'throw' | 'wait';
  readonly wait: WaitPolicy;
  /** Turns a stored result into the response a duplicate gets. */
  readonly onReplay?: ((result: TResult, event: TEvent) => TResult | Promise<TResult>) | undefined;
}

/** Builds the middleware for one single-event source. */
export function eventIdempotency<TEvent extends object, TResult>(
  source: EventSource<TEvent>,
  config: EventConfig<TEvent, TResult>,
): MiddlewareObj<TEvent, TResult> {
  const { store, logger, onReplay } = config;
  const { payload } = config;
  const runs = new WeakMap<object, EventRun>();
  const { owner } = source;
  const metrics = metricsSink(config.metrics);
  // What a duplicate answered from the stored result returns (shared with handleEvent's transaction duplicate).
  const replayed = async (result: unknown, event: unknown): Promise<unknown> =>
    onReplay === undefined ? result : onReplay(result as TResult, event as TEvent);

  /** `replay`: a duplicate answered with the stored result; `early`: answered before the handler (Middy skips every `after`). */
  function emit(consumer: string, startedAt: number, id: string | undefined, outcome: RecordOutcome, replay = false, early = replay): void {
    if (logger === false && metrics === false) return;
    const built = batchLine(source.name, consumer, config.strategy, [outcome], () => id, Date.now() - startedAt);
    const line = replay ? { ...built, records: built.records.map((r) => ({ ...r, replay: true })) } : built;
    safeLog(logger, line);
    safeMetrics(metrics, line, early);
  }

  function log(run: EventRun, outcome: RecordOutcome, replay = false, early = replay): void {
    emit(run.consumer, run.startedAt, run.owned.id, outcome, replay, early);
  }

  /** Logs an event refused before the handler (docs/operations.md promises a line per event) and returns its error to throw. */
  function refused<E extends Error>(run: EventRun, error: E, outcome: RecordOutcome): E {
    log(run, outcome);
    return error;
  }

  /** A store request before the handler: a refusal (throttling, network) is a `failed` event, logged and counted, then thrown. */
  async function storeCall<T>(run: EventRun, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const { messageId, key } = run.owned;
      throw refused(run, error as Error, { kind: 'failed', messageId, key, error });
    }
  }

  /** Claims, replays or throws; resolves the replayed result when the handler must not run. */
  async function claimOrReplay(request: Request<TEvent, TResult>, run: EventRun): Promise<{ replay: unknown } | undefined> {
    const left = remainingTime(request.context);
    const leaseMs = leaseDuration(left, config.lease);
    // One deadline for the whole wait, however many claim-and-wait rounds it takes.
    const waitUntil = Date.now() + Math.min(config.wait.maxMs, left - run.safetyMarginMs);
    for (;;) {
      const sentAt = Date.now();
      const claim = await storeCall(run, () => store.claim({ ...run.owned, consumer: run.consumer, leaseMs }));
      if (claim.kind === 'claimed') {
        run.owned = { ...run.owned, token: claim.token };
        const plan = heartbeatPlan(config.lease.heartbeat, store, leaseMs, sentAt);
        if (plan !== undefined) run.keeper = keepLease(plan, { id: claim.id, token: claim.token, key: run.owned.key });
        return undefined;
      }
      const message = `Key already recorded under ${run.owned.id} with a different payload.`;
      const mismatch = payloadMismatch(run.owned.payloadHash, claim.existing.payloadHash, message, {
        key: run.owned.key,
        existing: claim.existing,
      });
      const { messageId, key } = run.owned;
      if (mismatch !== undefined) throw refused(run, mismatch, { kind: 'invalid', messageId, key, error: mismatch });
      if (claim.kind === 'completed') {
        log(run, { kind: 'duplicate', messageId, key, existing: claim.existing, fromCache: claim.fromCache }, true);
        return { replay: claim.existing.result };
      }
      const inProgress = new IdempotencyInProgressError(`${run.owned.id} is being processed by another invocation.`, {
        key: run.owned.key,
        existing: claim.existing,
      });
      const busy: RecordOutcome = { kind: 'in-progress', messageId, key, existing: claim.existing };
      const budget = waitUntil - Date.now();
      if (config.inProgress === 'throw' || budget <= 0) throw refused(run, inProgress, busy);
      const waited = await storeCall(run, () => waitForOwner(store, run.owned.id, claim.existing, budget, config.wait, systemClock));
      if (waited.kind === 'timed-out') throw refused(run, inProgress, busy);
      if (waited.kind === 'completed') {
        log(run, { kind: 'duplicate', messageId, key, existing: waited.record, fromCache: false }, true);
        return { replay: waited.record.result };
      }
    }
  }

  async function before(request: Request<TEvent, TResult>): Promise<void> {
    const reason = source.invalidEvent(request.event);
    if (reason !== undefined) throw new TypeError(`${owner}: the event is not ${source.eventKind} (${reason}).`);
    const startedAt = Date.now();
    const consumer = consumerName(owner, config.consumer, request.context?.functionName);
    const messageId = source.itemId(request.event);
    const prepared = prepare(request.event, { key: config.key, payload });
    if (prepared instanceof Error) {
      emit(consumer, startedAt, undefined, { kind: 'invalid', messageId, error: prepared });
      throw prepared;
    }
    let id: string;
    try {
      id = store.recordId(consumer, prepared.key);
    } catch (error) {
      // A key the store cannot take (too long) is an invalid event, logged and counted as the batch path does.
      if (error instanceof InvalidRecordError)
        emit(consumer, startedAt, undefined, { kind: 'invalid', messageId, key: prepared.key, error });
      throw error;
    }
    const owned: OwnedRecord = {
      messageId,
      key: prepared.key,
      id,
      ...(prepared.payloadHash === undefined ? {} : { payloadHash: prepared.payloadHash }),
    };
    const safetyMarginMs = safetyMargin(remainingTime(request.context), config.safetyMarginMs, config.autoSafetyMargin);
    const run: EventRun = {
      consumer,
      owned,
      startedAt,
      transactional: config.strategy === 'transaction',
      committed: undefined,
      storeResult: config.storeResult,
      onConflict: config.onConflict,
      store,
      safetyMarginMs,
      replayed,
    };
    if (!run.transactional) {
      const replay = await claimOrReplay(request, run);
      if (replay !== undefined) {
        request.earlyResponse = (await replayed(replay.replay, request.event)) as TResult;
        return;
      }
    }
    runs.set(request, run);
    attachEventRun(request.event, request.context, run);
  }

  async function after(request: Request<TEvent, TResult>): Promise<void> {
    const run = runs.get(request);
    if (run === undefined) return;
    runs.delete(request);
    if (run.transactional) {
      if (run.committed === undefined) {
        throw new TypeError(`${owner}: strategy "transaction" needs the handler wrapped in handleEvent().`);
      }
      // handleEvent answered a duplicate with the stored result: a replay too, though not an early one.
      log(run, run.committed, run.committed.kind === 'duplicate', false);
      return;
    }
    await run.keeper?.stop();
    const outcome = await settleClaim(store, run.owned, { kind: 'succeeded', result: request.response }, config.storeResult);
    log(run, outcome);
    if (outcome.kind !== 'completed' && 'error' in outcome) throw outcome.error;
  }

  async function onError(request: Request<TEvent, TResult>): Promise<void> {
    const run = runs.get(request);
    if (run === undefined) return;
    runs.delete(request);
    // After Middy's early timeout the handler may still be running: leave the
    // claim to its lease rather than let a retry run the effect alongside it.
    const timedOut = (request.error as { name?: unknown } | null | undefined)?.name === 'TimeoutError';
    await run.keeper?.stop();
    if (!run.transactional && !timedOut) await releaseClaim(store, run.owned, request.error);
    const { messageId, key } = run.owned;
    const error = request.error;
    const lost = run.keeper?.lost;
    // As for a batch: an invalid record thrown by the handler (a body failing its schema) is logged invalid, not failed.
    const thrown: RecordOutcome =
      lost !== undefined
        ? { kind: 'lease-lost', messageId, key, error: lost }
        : error instanceof InvalidRecordError
          ? { kind: 'invalid', messageId, key, error }
          : { kind: 'failed', messageId, key, error };
    log(run, run.committed ?? thrown);
    // Returning nothing lets Middy rethrow the original error: Lambda's async retry takes over.
  }

  return { before, after, onError, name: owner };
}
