/**
 * The single-event lifecycle as a Middy middleware, for any {@link EventSource}
 * (EventBridge, asynchronously invoked): claim (or replay, or wait for an
 * in-progress owner) before the handler, settle the claim once after it, and
 * log one line. A duplicate returns the stored result without running the
 * handler; a failure is thrown so Lambda's async retry tries again.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import { InvalidRecordError } from '../../engine/errors.js';
import { claimAndDecide, decisionOutcome } from '../../engine/claim-decide.js';
import { leaseDuration, safetyMargin } from '../../engine/lease.js';
import type { EventStrategy } from '../../strategies/types.js';
import type { RecordOutcome } from '../../engine/outcomes.js';
import { invocationContext, type EventRun } from './handler.js';
import { ownerWait, type WaitPolicy } from '../../engine/wait.js';
import { heartbeatPlan, keepLease } from '../../engine/heartbeat.js';
import { batchLine, safeLog } from '../../observe/log.js';
import { consumerName, type LifecycleConfig } from '../../batch/options.js';
import { prepare } from '../../engine/prepare.js';
import { releaseClaim, settleClaim, type OwnedRecord } from '../../engine/settle.js';
import type { EventSource } from '../../engine/source.js';
import { remainingTime } from '../../engine/time.js';
import { durableExecutionOf, lambdaContextOf } from '../../engine/durable.js';
import { watchEarlyResponse, type Answered } from '../../batch/early-response.js';

/** The resolved options a single-event middleware runs with (see `resolveMiddlewareOptions`). */
export interface EventConfig<TEvent, TResult = unknown> extends LifecycleConfig<TEvent> {
  /** The strategy's steps for one event, built once for this middleware: the lifecycle calls them and never names a strategy. */
  readonly steps: EventStrategy;
  readonly inProgress: 'throw' | 'wait';
  readonly wait: WaitPolicy;
  /** Turns a stored result into the response a duplicate gets. */
  readonly onReplay?: ((result: TResult, event: TEvent) => TResult | Promise<TResult>) | undefined;
}

/**
 * The invocation's run, kept in Middy's `request.internal` (one object per
 * request) with the end of its early-response watch: `after` and `onError`
 * find it there, whatever concurrent invocations of the same handler do.
 */
const RUN_SLOT = 'effectively-once:event-run';

interface HeldRun {
  readonly run: EventRun;
  readonly unwatch: () => void;
}

/** The run, removed from the request so that `after`, `onError` or an early response settle it once. */
function takeRun(request: Request<unknown, unknown>): EventRun | undefined {
  const internal = request.internal as Record<string, unknown>;
  const held = internal[RUN_SLOT] as HeldRun | undefined;
  delete internal[RUN_SLOT];
  held?.unwatch();
  return held?.run;
}

type LoggedRun = Pick<EventRun, 'consumer' | 'startedAt' | 'trace'> & { readonly owned?: OwnedRecord };

/** Builds the middleware for one single-event source; `owner`, the middleware's name (`eventBridgeIdempotency`), names it in errors. */
export function eventIdempotency<TEvent extends object, TResult>(
  owner: string,
  source: EventSource,
  config: EventConfig<TEvent, TResult>,
): MiddlewareObj<TEvent, TResult> {
  const { store, logger, onReplay, steps, payload, metrics } = config;
  // What a duplicate answered from the stored result returns (shared with eventBridgeHandler's transaction duplicate).
  const replayed = async (result: unknown, event: unknown): Promise<unknown> =>
    onReplay === undefined ? result : onReplay(result as TResult, event as TEvent);

  /**
   * One line for the event (`run` without `owned`: refused before it had a record id). `replay`: a duplicate answered
   * with the stored result; `early`: answered before the handler (Middy skips every `after`).
   */
  function log(run: LoggedRun, outcome: RecordOutcome, replay = false, early = replay): void {
    run.trace?.end([outcome]);
    if (logger === false && metrics === undefined) return;
    const built = batchLine(source.name, run.consumer, steps.name, [outcome], () => run.owned?.id, Date.now() - run.startedAt);
    const line = replay ? { ...built, records: built.records.map((r) => ({ ...r, replay: true })) } : built;
    safeLog(logger, line);
    metrics?.writeLine(line, early);
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

  /**
   * A cutover (the `previous` option): the event about to run (claimed, or valid under the transaction strategy) is
   * first decided from the previous library's record of it. Resolves the replayed result of one it completed, or
   * `undefined` to run; throws (logged) for one it still holds.
   */
  async function fromPrevious(event: TEvent, run: EventRun, leaseMs: number): Promise<{ replay: unknown } | undefined> {
    const use = { store, consumer: run.consumer, leaseMs, storeResult: config.storeResult };
    const verdict = await config.previous?.decide(event, run.owned, use);
    if (verdict === undefined) return undefined;
    if (verdict.kind === 'refused') throw refused(run, verdict.error as Error, verdict.outcome);
    log(run, verdict.outcome, true);
    return { replay: verdict.outcome.existing.result };
  }

  /** The transaction strategy claims nothing before the handler (eventBridgeHandler commits), but a cutover still decides the event first. */
  async function previousBeforeCommit(request: Request<TEvent, TResult>, run: EventRun): Promise<{ replay: unknown } | undefined> {
    if (config.previous === undefined) return undefined;
    return fromPrevious(request.event, run, leaseDuration(remainingTime(lambdaContextOf(request.context)), config.lease));
  }

  /** Claims, replays or throws; resolves the replayed result when the handler must not run. */
  async function claimOrReplay(request: Request<TEvent, TResult>, run: EventRun): Promise<{ replay: unknown } | undefined> {
    const left = remainingTime(lambdaContextOf(request.context));
    // A durable function's replay resumes its own claim, whose lease spans the execution (docs/durable-functions.md).
    const execution = durableExecutionOf(request.context);
    const leaseMs = execution?.leaseMs ?? leaseDuration(left, config.lease);
    const { messageId, key, payloadHash } = run.owned;
    // One deadline for the whole wait, however many claim-and-wait rounds it takes.
    const wait =
      config.inProgress === 'wait'
        ? ownerWait(Date.now() + Math.min(config.wait.maxMs, left - run.safetyMarginMs), config.wait)
        : undefined;
    const claim = {
      consumer: run.consumer,
      key,
      messageId: execution?.marker ?? messageId,
      leaseMs,
      ...(payloadHash === undefined ? {} : { payloadHash }),
    };
    const wording = { differs: 'a different payload', holder: 'invocation' };
    const decide = () => claimAndDecide({ store, claim, wording, wait, execution });
    const decision = await storeCall(run, () => run.trace?.step(run.owned, 'claim', decide) ?? decide());
    switch (decision.kind) {
      case 'claimed': {
        run.owned = { ...run.owned, token: decision.token };
        // A durable execution resuming its own claim was decided when it first claimed.
        const previous = decision.resumed ? undefined : await fromPrevious(request.event, run, leaseMs);
        if (previous !== undefined) return previous;
        // The handler may start now: `eventBridgeHandler` runs it in this span.
        run.effect = run.trace?.effect(run.owned);
        // No heartbeat for a durable execution: its lease spans it, and a suspended one has no process to renew it.
        const plan = execution === undefined ? heartbeatPlan(steps.heartbeat ?? false, store, leaseMs, decision.sentAt) : undefined;
        if (plan !== undefined) run.keeper = keepLease(plan, { id: decision.id, token: decision.token, key });
        return undefined;
      }
      case 'duplicate':
        log(run, decisionOutcome(decision, messageId), true);
        return { replay: decision.existing.result };
      default:
        throw refused(run, decision.error, decisionOutcome(decision, messageId));
    }
  }

  /** The event's trace (its span, over its claim, effect and completion), when the middleware was given `tracing`. */
  function startTrace(event: TEvent, consumer: string, messageId: string) {
    return config.tracing?.start({
      source: source.name,
      consumer,
      strategy: steps.name,
      records: [event],
      idOf: () => messageId,
      single: true,
    });
  }

  async function before(request: Request<TEvent, TResult>): Promise<void> {
    const messageId = source.id(request.event);
    if (typeof messageId !== 'string') throw new TypeError(`${owner}: the event is ${messageId.refused}.`);
    const startedAt = Date.now();
    // A durable function's handler gets a DurableContext; the function name is on the Lambda context it holds.
    const consumer = consumerName(owner, config.consumer, lambdaContextOf(request.context)?.functionName);
    const trace = startTrace(request.event, consumer, messageId);
    const prepared = prepare(request.event, { key: config.key, payload });
    if (prepared instanceof Error) {
      log({ consumer, startedAt, trace }, { kind: 'invalid', messageId, error: prepared });
      throw prepared;
    }
    let id: string;
    try {
      id = store.recordId(consumer, prepared.key);
    } catch (error) {
      // A key the store cannot take (too long) is an invalid event, logged and counted as the batch path does.
      if (error instanceof InvalidRecordError)
        log({ consumer, startedAt, trace }, { kind: 'invalid', messageId, key: prepared.key, error });
      else trace?.end([{ kind: 'failed', messageId, key: prepared.key, error }]);
      throw error;
    }
    const owned: OwnedRecord = { messageId, id, ...prepared };
    const safetyMarginMs = safetyMargin(remainingTime(lambdaContextOf(request.context)), config.safetyMarginMs, config.autoSafetyMargin);
    const run: EventRun = {
      consumer,
      owned,
      startedAt,
      committed: undefined,
      steps,
      safetyMarginMs,
      replayed,
      trace,
    };
    const replay = steps.commit === undefined ? await claimOrReplay(request, run) : await previousBeforeCommit(request, run);
    if (replay !== undefined) {
      request.earlyResponse = (await replayed(replay.replay, request.event)) as TResult;
      return;
    }
    const unwatch = watchEarlyResponse(request, (answered) => answeredEarly(request, answered));
    (request.internal as Record<string, unknown>)[RUN_SLOT] = { run, unwatch } satisfies HeldRun;
    request.context = invocationContext(request.context, run);
  }

  async function after(request: Request<TEvent, TResult>): Promise<void> {
    await succeeded(takeRun(request), request.response);
  }

  /** The handler returned `response`: the claim completes (a transaction: the commit is logged). */
  async function succeeded(run: EventRun | undefined, response: unknown): Promise<void> {
    if (run === undefined) return;
    if (steps.commit !== undefined) {
      if (run.committed === undefined) {
        const error = new TypeError(
          `${owner}: strategy: transaction() needs the handler wrapped in eventBridgeHandler(), and no middleware after ${owner} may replace the Lambda context.`,
        );
        run.trace?.end([{ kind: 'failed', messageId: run.owned.messageId, key: run.owned.key, error }]);
        throw error;
      }
      // eventBridgeHandler answered a duplicate with the stored result: a replay too, though not an early one.
      log(run, run.committed, run.committed.kind === 'duplicate', false);
      return;
    }
    await run.keeper?.stop();
    run.effect?.end();
    const complete = () => settleClaim(store, run.owned, { kind: 'succeeded', result: response }, config.storeResult);
    const outcome = await (run.trace?.step(run.owned, 'complete', complete) ?? complete());
    log(run, outcome);
    if (outcome.kind !== 'completed' && 'error' in outcome) throw outcome.error;
  }

  async function onError(request: Request<TEvent, TResult>): Promise<void> {
    await failed(takeRun(request), request.error);
  }

  /** The handler (or a middleware after ours) threw `error`: the claim is released for Lambda's retry. */
  async function failed(run: EventRun | undefined, error: unknown): Promise<void> {
    if (run === undefined) return;
    // After Middy's early timeout the handler may still be running: leave the
    // claim to its lease rather than let a retry run the effect alongside it.
    const timedOut = (error as { name?: unknown } | null | undefined)?.name === 'TimeoutError';
    await run.keeper?.stop();
    run.effect?.end(error);
    const release = () => releaseClaim(store, run.owned, error);
    if (steps.commit === undefined && !timedOut) await (run.trace?.step(run.owned, 'release', release) ?? release());
    const { messageId, key } = run.owned;
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

  /**
   * A middleware after ours answered early (batch/early-response.ts): Middy
   * runs neither our `after` nor our `onError`, so what they would have done
   * is done here, before the response goes out: after an error, the claim is
   * released; after the handler returned, it completes with what the handler
   * returned; before the handler ran, it is released, so a redelivery runs at
   * once rather than after the lease. The heartbeat stops and the event is logged.
   */
  async function answeredEarly(request: Request<TEvent, TResult>, answered: Answered<unknown>): Promise<void> {
    const run = takeRun(request);
    if (request.error !== undefined && request.error !== null) return failed(run, request.error);
    if (answered !== undefined) return succeeded(run, answered.response);
    return failed(run, new Error(`A middleware after ${owner} answered early, before the handler ran.`));
  }

  return { before, after, onError, name: owner };
}
