/**
 * The batch lifecycle as a Middy middleware, for any {@link BatchSource}:
 * admit every record before the handler (claim, or validate for the
 * transaction strategy), run the owned ones through `eachRecord`, settle each
 * record once, and answer with the source's response naming exactly the
 * records that must come back. The source says how to read its events; this
 * file never reads one itself.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import { DeadlineError } from '../engine/errors.js';
import { leaseDuration, safetyMargin } from '../engine/lease.js';
import { acknowledged, type RecordOutcome } from '../engine/outcomes.js';
import type { DuplicateRate } from '../transaction/group-commit/duplicate-probe.js';
import { aboutTheBatch, usageError } from '../sources/sqs/permanent.js';
import { admitBatch, startAdmissions, type Admission } from './admit.js';
import { BatchRun, type RunRecord } from './run.js';
import type { BatchFeatures } from './features.js';
import type { HeartbeatPlan } from '../engine/heartbeat.js';
import { batchLine, safeLog, withNotes } from '../observe/log.js';
import { consumerName, type LifecycleConfig } from '../engine/middleware-options.js';
import { attachRunner, detachRunner } from './runner-link.js';
import { settleClaim, type Execution, type OwnedRecord } from '../engine/settle.js';
import { distinctRecords, idOf, type BatchSource } from '../sources/source.js';
import { behindFailures } from './stream-order.js';
import { remainingTime } from '../engine/time.js';

/** What an {@link AfterSettle} step returns: the outcomes the response is built from, and notes for the log line. */
export interface AfterSettleResult {
  readonly outcomes: readonly RecordOutcome[];
  readonly backedOff?: number;
  readonly sqsErrors?: readonly string[];
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

/** The resolved options a batch middleware runs with (see `resolveMiddlewareOptions`). */
export type BatchConfig<TRecord> = LifecycleConfig<TRecord> & {
  readonly afterSettle?: AfterSettle<TRecord> | undefined;
  /** `'pipelined'`: each record starts when its own claim returns (claim strategy, eachRecord). */
  readonly claims?: 'batch' | 'pipelined';
};

/** Per-invocation state between before and after. */
interface BatchState<TRecord> {
  readonly original: readonly TRecord[];
  /** Final outcomes by record id: found before the handler, then every other record's at the end. */
  readonly settled: Map<string, RecordOutcome>;
  /** Idempotency record ids by record id, for the log line. */
  readonly ids: Map<string, string>;
  readonly run: BatchRun<TRecord>;
  readonly consumer: string;
  readonly startedAt: number;
  /** The invocation's time left, read when the batch is answered (the log line warns near the deadline). */
  readonly timeLeft: () => number;
  /** Pipelined claims: every record's admission, awaited before the batch is answered. */
  readonly pending?: Promise<Admission<TRecord>[]>;
}

type StateConfig<TRecord> = BatchConfig<TRecord> & {
  readonly consumer: string;
  readonly startedAt: number;
  readonly timeLeft: () => number;
  readonly margin: number;
  readonly leaseMs: number;
  readonly heartbeat: HeartbeatPlan | undefined;
  readonly features: BatchFeatures;
  readonly duplicates: DuplicateRate | undefined;
};

/** Sorts the admissions: final outcomes now, the rest handed to a runner. */
function stateFrom<TRecord>(
  source: BatchSource<unknown, TRecord, unknown>,
  admissions: readonly Admission<TRecord>[],
  original: readonly TRecord[],
  config: StateConfig<TRecord>,
): BatchState<TRecord> {
  const settled = new Map<string, RecordOutcome>();
  const ids = new Map<string, string>();
  const given: RunRecord<TRecord>[] = [];
  for (const a of admissions) {
    if (a.kind === 'settled') {
      settled.set(a.outcome.messageId, a.outcome);
      if (a.id !== undefined) ids.set(a.outcome.messageId, a.id);
      continue;
    }
    ids.set(a.owned.messageId, a.owned.id);
    given.push(a);
  }
  const transactional = config.strategy === 'transaction';
  const run = new BatchRun(source, given, { ...config, transactional, safetyMarginMs: config.margin, found: settled });
  return { original, settled, ids, run, consumer: config.consumer, startedAt: config.startedAt, timeLeft: config.timeLeft };
}

/**
 * Pipelined claims: the claims are started, not awaited; the run waits for
 * each record's own claim just before running it. The handler is handed no
 * records (none is known to be claimed yet).
 */
function pipelinedState<TRecord>(
  source: BatchSource<unknown, TRecord, unknown>,
  original: readonly TRecord[],
  admit: Parameters<typeof startAdmissions<TRecord>>[1],
  config: StateConfig<TRecord>,
): BatchState<TRecord> {
  const started = startAdmissions(original, admit);
  const ids = new Map<string, string>();
  const given: RunRecord<TRecord>[] = [];
  const pending = new Map<string, Promise<Admission<TRecord>>>();
  for (const { record, owned, leader, admission } of started) {
    if (owned === undefined) continue; // invalid: settled when the admissions are awaited
    ids.set(owned.messageId, owned.id);
    given.push(leader === undefined ? { record, owned } : { record, owned, leader });
    if (leader === undefined) pending.set(owned.messageId, admission);
  }
  const run = new BatchRun(source, given, { ...config, transactional: false, safetyMarginMs: config.margin }, pending);
  const all = Promise.all(started.map((s) => s.admission));
  const { consumer, startedAt, timeLeft } = config;
  return { original, settled: new Map(), ids, run, consumer, startedAt, timeLeft, pending: all };
}

/** Pipelined claims: waits for every claim, so that tokens are known and outcomes found before the handler count. */
async function admitPending<TRecord>(state: BatchState<TRecord>): Promise<void> {
  if (state.pending === undefined) return;
  const admissions = await state.pending;
  state.run.admit(admissions);
  for (const a of admissions) {
    if (a.kind === 'settled' && !state.ids.has(a.outcome.messageId)) state.settled.set(a.outcome.messageId, a.outcome);
  }
}

/**
 * Builds the middleware for one source. `source.owner` names it in errors.
 * The response is built in one place, `respond`, from one final outcome per
 * record; a record with no outcome comes back. `features`: the optional
 * parts the entry point hands in (all from the main entry; none from the
 * claim-only one, whose option checks refuse what they would serve).
 */
export function batchIdempotency<TEvent extends object, TRecord, TResponse>(
  source: BatchSource<TEvent, TRecord, TResponse>,
  config: BatchConfig<TRecord>,
  features: BatchFeatures,
): MiddlewareObj<TEvent, TResponse> {
  const { store, logger } = config;
  const { owner } = source;
  const transactional = config.strategy === 'transaction';
  const metrics = features.metrics?.sink(config.metrics);
  // Group commit's duplicate probe follows this container's recent duplicates (across invocations).
  const duplicates = features.transaction?.duplicateRate(config.probeDuplicates ?? 'auto');
  // Keyed by the Middy request object: unique per invocation, even when tests reuse a context.
  const states = new WeakMap<object, BatchState<TRecord>>();

  async function before(request: Request<TEvent, TResponse>): Promise<TResponse | undefined> {
    const reason = source.invalidEvent(request.event);
    if (reason !== undefined) throw new TypeError(`${owner}: the event is not ${source.eventKind}: ${reason}.`);
    const startedAt = Date.now();
    const consumer = consumerName(owner, config.consumer, request.context?.functionName);
    const remaining = remainingTime(request.context);
    const margin = safetyMargin(remaining, config.safetyMarginMs, config.autoSafetyMargin);
    // A repeated record id is one delivery: run once, named once in the response and the log.
    const original = distinctRecords(source, source.records(request.event));
    const leaseMs = leaseDuration(remaining, config.lease);
    // The transaction strategy holds no claim to renew (the option check refuses the pair).
    const heartbeat = transactional ? undefined : features.heartbeat?.plan(config.lease.heartbeat, store, leaseMs, Date.now());
    const admit = { ...config, source, consumer, claim: !transactional, leaseMs };
    const { context } = request;
    const timeLeft = () => remainingTime(context);
    const stateConfig = { ...config, consumer, startedAt, timeLeft, margin, leaseMs, heartbeat, features, duplicates };
    // FIFO batches are claimed as a batch: a group's hold-back is decided from all its claims.
    const pipelined = config.claims === 'pipelined' && !transactional && original.every((r) => source.lane(r) === undefined);
    const state = pipelined
      ? pipelinedState(source, original, admit, stateConfig)
      : stateFrom(source, await admitBatch(original, admit), original, stateConfig);
    // A FIFO copy that may take over a claim released unrun (cross-group.ts) is in `records`, not among the leaders.
    if (state.run.records.length === 0) {
      await admitPending(state);
      return respond(state, new Map(), true);
    }
    const event = source.withRecords(request.event, state.run.ownedRecords);
    attachRunner(event, request.context, state.run);
    request.event = event;
    states.set(request, state);
    return undefined;
  }

  /** Finished records keep their executions; running ones keep their claims (interrupted); the rest are released. */
  function unfinished(state: BatchState<TRecord>, running: ReadonlySet<string>, error: unknown): Map<string, Execution> {
    const executions = new Map(state.run.executions);
    for (const record of state.run.leaderRecords) {
      const id = idOf(source, record);
      if (!executions.has(id)) executions.set(id, running.has(id) ? { kind: 'interrupted', error } : { kind: 'threw', error });
    }
    return executions;
  }

  /** Executions for records the handler ran without `eachRecord`: its own response decides. */
  function fromResponse(state: BatchState<TRecord>, response: unknown): Map<string, Execution> {
    const executions = new Map(state.run.executions);
    const failed = source.retriedIn(response);
    // Streams: naming a shard's first failure is enough for the mapping, so the records after it did not run either.
    const stopped = new Set<string | undefined>();
    for (const record of state.run.leaderRecords) {
      const id = idOf(source, record);
      const lane = source.lane(record);
      if (source.resumesFromFirstFailure === true && lane !== undefined && failed.has(id)) stopped.add(lane);
      if (executions.has(id)) continue;
      const error = transactional
        ? usageError(`${owner}: strategy "transaction" needs the handler wrapped in eachRecord().`)
        : new Error('Reported in the handler’s batchItemFailures.');
      const threw = transactional || failed.has(id) || stopped.has(lane);
      executions.set(id, threw ? { kind: 'threw', error } : { kind: 'succeeded', result: undefined });
    }
    return executions;
  }

  /**
   * Pipelined claims and a handler that never called `eachRecord`: it was
   * handed no records, so nothing ran. Every record comes back, claims
   * released, found-done ones included (nothing is acknowledged unseen).
   */
  function unrun(state: BatchState<TRecord>): Map<string, Execution> {
    const error = usageError(`${owner}: claims "pipelined" needs the handler wrapped in eachRecord(); it was handed no records.`);
    const executions = new Map<string, Execution>();
    for (const record of state.run.leaderRecords) {
      const o: OwnedRecord = state.run.ownedRecord(idOf(source, record));
      const failed = { kind: 'failed', messageId: o.messageId, key: o.key, error } as const;
      executions.set(o.messageId, o.token === undefined ? { kind: 'settled', outcome: failed } : { kind: 'threw', error });
    }
    return executions;
  }

  /**
   * Settles each owned record not yet final (once), decides the later copies,
   * logs, counts, and builds the response. `early`: answered before the handler.
   */
  async function respond(state: BatchState<TRecord>, executions: ReadonlyMap<string, Execution>, early = false): Promise<TResponse> {
    const owned = state.run.leaderRecords.map((record) => state.run.ownedRecord(idOf(source, record)));
    const final = await Promise.all(
      owned.map((o) => {
        const execution = executions.get(o.messageId) ?? { kind: 'not-started', reason: 'handler-threw' };
        return execution.kind === 'settled' ? execution.outcome : settleClaim(store, o, execution, config.storeResult);
      }),
    );
    for (const outcome of final) state.settled.set(outcome.messageId, outcome);
    for (const outcome of state.run.followerOutcomes(state.settled)) state.settled.set(outcome.messageId, outcome);
    // A record with no outcome is retried: a gap here must never turn into a silent acknowledgement.
    const settled = state.original.map((r): RecordOutcome => {
      const id = idOf(source, r);
      return state.settled.get(id) ?? { kind: 'not-started', messageId: id, reason: 'handler-threw' };
    });
    const { outcomes, ...notes } = await afterSettle(state, behindFailures(source, state.original, settled));
    if (logger !== false || metrics !== undefined) {
      const idOfOutcome = (o: RecordOutcome) => state.ids.get(o.messageId);
      const line = batchLine(source.name, state.consumer, config.strategy, outcomes, idOfOutcome, Date.now() - state.startedAt);
      safeLog(logger, withNotes(line, notes, state.timeLeft()));
      metrics?.(line, early);
    }
    return source.respond(outcomes.filter((o) => !acknowledged(o)).map((o) => o.messageId));
  }

  /** The source's after-settle step, if it has one; a step that throws changes nothing. */
  async function afterSettle(state: BatchState<TRecord>, outcomes: readonly RecordOutcome[]): Promise<AfterSettleResult> {
    if (config.afterSettle === undefined) return { outcomes };
    const records = new Map(state.original.map((r) => [idOf(source, r), r] as const));
    try {
      return await config.afterSettle(outcomes, { records, consumer: state.consumer });
    } catch (err) {
      return { outcomes, sqsErrors: [err instanceof Error ? err.message : String(err)] };
    }
  }

  function take(request: Request<TEvent, TResponse>): BatchState<TRecord> | undefined {
    const state = states.get(request);
    if (state === undefined) return undefined;
    states.delete(request);
    detachRunner(state.run);
    return state;
  }

  async function after(request: Request<TEvent, TResponse>): Promise<void> {
    const state = take(request);
    if (state === undefined) return;
    const running = await state.run.close();
    await admitPending(state);
    // With eachRecord, a record without an execution was cut short (e.g. by a
    // timeout response that returns instead of throwing): never acknowledge it.
    const executions = state.run.begun
      ? unfinished(state, running, new DeadlineError('The batch was answered before this record finished.'))
      : state.pending === undefined
        ? fromResponse(state, request.response)
        : unrun(state);
    request.response = await respond(state, executions);
  }

  async function onError(request: Request<TEvent, TResponse>): Promise<void> {
    const state = take(request);
    if (state === undefined) return; // failed before claiming anything: let the error through
    // Records the handler finished keep their executions; those still running
    // keep their claims until the lease passes; the rest are released. All
    // but the finished ones are reported failed.
    const running = await state.run.close();
    await admitPending(state);
    // The batch handler threw: the records it did not finish never failed on their own, so none is a permanent failure.
    request.response = await respond(state, unfinished(state, running, aboutTheBatch(request.error)));
  }

  return { before, after, onError, name: owner };
}
