/**
 * The batch lifecycle as a Middy middleware, for any {@link BatchSource}: admit every record through the strategy,
 * run the owned ones through `eachRecord`, settle each once, and answer naming exactly the records that must come back.
 * This file never reads an event itself (the source does), nor asks which strategy it has.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import { DeadlineError } from '../engine/errors.js';
import { leaseDuration, safetyMargin } from '../engine/lease.js';
import { consumerName, type LifecycleConfig } from './options.js';
import { acknowledged, type RecordOutcome } from '../engine/outcomes.js';
import type { Execution } from '../engine/settle.js';
import { remainingTime } from '../engine/time.js';
import { batchLine, safeLog, withNotes, type LineNotes } from '../observe/log.js';
import { distinctRecords, idOf, isRefusal, readOnce, type BatchSource } from '../engine/source.js';
import { admission } from './admit.js';
import { accountedOutcomes } from './accounted.js';
import { BatchInvocation } from './invocation.js';
import { attachRunner } from './runner-link.js';
import { watchEarlyResponse } from './early-response.js';
import type { BatchStrategy } from '../strategies/types.js';

/** What an {@link AfterSettle} step returns: the outcomes the response is built from, and its notes for the log line. */
export interface AfterSettleResult {
  readonly outcomes: readonly RecordOutcome[];
  readonly notes?: LineNotes;
}

/**
 * A source's own step after every outcome is final and before the response
 * (SQS: permanent failures to the DLQ, backoff). It may only turn a retried
 * outcome into an acknowledged one once its effect is safe elsewhere, and
 * must not throw.
 */
export type AfterSettle<TRecord> = (
  outcomes: readonly RecordOutcome[],
  context: { readonly records: ReadonlyMap<string, TRecord>; readonly consumer: string },
) => Promise<AfterSettleResult>;

/** The resolved options a batch middleware runs with (see `resolveMiddlewareOptions`), and the parts its entry brings in. */
export type BatchConfig<TRecord> = LifecycleConfig<TRecord> & {
  /** The middleware's name (`sqsIdempotency`): Middy's name for it, and what its errors begin with. */
  readonly owner: string;
  readonly afterSettle?: AfterSettle<TRecord> | undefined;
  /** `'pipelined'`: each record starts when its own claim returns (claim strategy, eachRecord). */
  readonly claims?: 'batch' | 'pipelined';
  /** The strategy's steps, built once for this middleware: what the entry imported is all it can run. */
  readonly steps: BatchStrategy;
};

// Middy's place for per-request state: a symbol, so no other middleware lists or overwrites it.
const INVOCATION = Symbol('effectively-once: the batch invocation');

type Internal = Record<symbol, unknown>;

/**
 * Builds the middleware for one source. `config.owner` names it in errors.
 * The response is built in one place, `respond`, from one final outcome per
 * record; a record with no outcome comes back.
 */
export function batchIdempotency<TEvent extends object, TRecord, TResponse>(
  source: BatchSource<TEvent, TRecord, TResponse>,
  config: BatchConfig<TRecord>,
): MiddlewareObj<TEvent, TResponse> {
  const { store, logger, steps, metrics, owner } = config;

  /** Keeps the invocation with its request until the batch is answered, and leaves it where `eachRecord` finds it. */
  function keep(request: Request<TEvent, TResponse>, invocation: BatchInvocation<TRecord>): void {
    let internal = request.internal as Internal | undefined;
    // Middy 6 shares a request's `internal` across requests when the plugin seeds it: another invocation's is then here.
    if (internal === undefined || internal[INVOCATION] !== undefined) {
      internal = Object.assign(Object.create(internal === undefined ? null : Object.getPrototypeOf(internal)), internal) as Internal;
      (request as { internal: Internal }).internal = internal;
    }
    internal[INVOCATION] = invocation;
  }

  /** Takes the invocation back once: the batch is answered, so `eachRecord` must not find it any more. */
  function take(request: Request<TEvent, TResponse>): BatchInvocation<TRecord> | undefined {
    const internal = request.internal as Internal | undefined;
    const invocation = internal?.[INVOCATION] as BatchInvocation<TRecord> | undefined;
    if (invocation === undefined || internal === undefined) return undefined;
    delete internal[INVOCATION];
    invocation.unlink();
    return invocation;
  }

  /** This invocation's trace (its batch span and a span per record), when the middleware was given `tracing`. */
  function startTrace(reader: BatchSource<TEvent, TRecord, TResponse>, consumer: string, records: readonly TRecord[]) {
    const idOfRecord = (record: unknown) => idOf(reader, record as TRecord);
    return config.tracing?.start({ source: source.name, consumer, strategy: steps.name, records, idOf: idOfRecord, single: false });
  }

  async function before(request: Request<TEvent, TResponse>): Promise<TResponse | undefined> {
    const records = source.records(request.event);
    if (isRefusal(records)) throw new TypeError(`${owner}: the event is ${records.refused}.`);
    const startedAt = Date.now();
    // Read each record once for the whole invocation (its id and lane are asked for again and again).
    const reader = readOnce(source);
    const consumer = consumerName(owner, config.consumer, request.context?.functionName);
    const remaining = remainingTime(request.context);
    const safetyMarginMs = safetyMargin(remaining, config.safetyMarginMs, config.autoSafetyMargin);
    // A repeated record id is one delivery: run once, named once in the response and the log.
    const original = distinctRecords(reader, records);
    const leaseMs = leaseDuration(remaining, config.lease);
    const trace = startTrace(reader, consumer, original);
    // This batch's admission, from the parts of the settings it uses (never the settings handed on whole).
    const previous = config.previous === undefined ? undefined : { records: config.previous, storeResult: config.storeResult };
    const admit = { source: reader, store, consumer, leaseMs, key: config.key, payload: config.payload, trace, previous };
    const { context } = request;
    const begun = steps.begin({ records: original, admit, admission, memoryLimitInMB: context?.memoryLimitInMB });
    // A strategy answers a record's failure with its outcome; a batch that could not be admitted at all ends its trace here.
    const batch = await begun.catch((error: unknown) => {
      trace?.end([], { error });
      throw error;
    });
    const timeLeft = () => remainingTime(context);
    const invocation = new BatchInvocation(reader, original, batch, { owner, consumer, startedAt, safetyMarginMs, timeLeft, trace });
    // A FIFO copy that may take over a claim released unrun (cross-group.ts) is in `records`, not among the leaders.
    if (invocation.records.length === 0) {
      await invocation.close();
      return respond(invocation, new Map(), true);
    }
    const event = source.withRecords(request.event, invocation.ownedRecords);
    const link = attachRunner(event, request.context, invocation);
    const unwatch = watchEarlyResponse(request, () => abandon(request));
    invocation.linked(() => {
      link.detach();
      unwatch();
    });
    keep(request, invocation);
    request.event = event;
    request.context = link.context;
    return undefined;
  }

  /**
   * Settles each owned record not yet final (once), decides the later copies,
   * logs, counts, and builds the response. `early`: answered before the handler.
   */
  async function respond(
    invocation: BatchInvocation<TRecord>,
    executions: ReadonlyMap<string, Execution>,
    early = false,
  ): Promise<TResponse> {
    const { outcomes, notes = {} } = await afterSettle(invocation, await settleAll(invocation, executions));
    record(invocation, outcomes, notes, early);
    return source.respond(outcomes.filter((o) => !acknowledged(o)).map((o) => o.messageId));
  }

  /** Every record's final outcome, in the order the source answers in. */
  async function settleAll(
    invocation: BatchInvocation<TRecord>,
    executions: ReadonlyMap<string, Execution>,
  ): Promise<readonly RecordOutcome[]> {
    const settled = await invocation.settle(executions, store, config.storeResult);
    const { source: reader, original } = invocation;
    return reader.behindFailures?.(reader, original, settled) ?? settled;
  }

  /** The batch's log line and metrics. */
  function record(invocation: BatchInvocation<TRecord>, outcomes: readonly RecordOutcome[], notes: LineNotes, early: boolean): void {
    const { ids, settings, requests } = invocation;
    settings.trace?.end(outcomes, { requests });
    if (logger === false && metrics === undefined) return;
    const idOfOutcome = (o: RecordOutcome) => ids.get(o.messageId);
    const durationMs = Date.now() - settings.startedAt;
    const line = batchLine(source.name, settings.consumer, steps.name, outcomes, idOfOutcome, durationMs, requests);
    safeLog(logger, withNotes(line, notes, settings.timeLeft()));
    metrics?.writeLine(line, early);
  }

  /**
   * A middleware after ours answered early (early-response.ts): Middy runs
   * neither our `after` nor our `onError`, and the response is that
   * middleware's. The invocation is given up here: the heartbeat stops, a
   * record `eachRecord` finished keeps its outcome, every other claim is
   * released (whatever the early response makes come back runs again at
   * once), and the line says so. No DLQ or backoff: the queue gets the other
   * middleware's answer.
   */
  async function abandon(request: Request<TEvent, TResponse>): Promise<void> {
    const invocation = take(request);
    if (invocation === undefined) return;
    const { running } = await invocation.close();
    const error = new Error(`A middleware after ${owner} answered the batch early; its claims were released.`);
    const outcomes = await settleAll(invocation, invocation.unfinished(running, error, true));
    const warning = `a middleware after ${owner} answered early (Middy then runs none of ${owner}'s after and onError): the claims of the records not run were released, and the batch's response is that middleware's`;
    record(invocation, outcomes, { warn: true, warnings: [warning] }, false);
  }

  /** The source's after-settle step, if it has one; a step that throws changes nothing. */
  async function afterSettle(invocation: BatchInvocation<TRecord>, outcomes: readonly RecordOutcome[]): Promise<AfterSettleResult> {
    if (config.afterSettle === undefined) return { outcomes };
    const records = new Map(invocation.original.map((r) => [idOf(invocation.source, r), r] as const));
    try {
      // Whatever the step returns, a record it did not account for keeps its outcome (accounted.ts).
      return accountedOutcomes(outcomes, await config.afterSettle(outcomes, { records, consumer: invocation.settings.consumer }));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { outcomes, notes: { warn: true, warnings: [`the source's after-settle step failed (${message}); its records came back`] } };
    }
  }

  async function after(request: Request<TEvent, TResponse>): Promise<void> {
    const invocation = take(request);
    if (invocation === undefined) return;
    const { running, ranEachRecord } = await invocation.close();
    // With eachRecord, a record without an execution was cut short (e.g. by a
    // timeout response that returns instead of throwing): never acknowledge it.
    const executions = ranEachRecord
      ? invocation.unfinished(running, new DeadlineError('The batch was answered before this record finished.'))
      : invocation.answeredByHandler(request.response);
    request.response = await respond(invocation, executions);
  }

  async function onError(request: Request<TEvent, TResponse>): Promise<void> {
    const invocation = take(request);
    if (invocation === undefined) return; // failed before claiming anything: let the error through
    // Records the handler finished keep their executions; those still running
    // keep their claims until the lease passes; the rest are released. All
    // but the finished ones are reported failed.
    const { running } = await invocation.close();
    // The batch handler threw: the records it did not finish never failed on their own, so none is a permanent failure.
    request.response = await respond(invocation, invocation.unfinished(running, request.error, true));
  }

  return { before, after, onError, name: owner };
}
