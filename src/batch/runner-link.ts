/**
 * The link between a batch middleware (`sqsIdempotency`) and `eachRecord`.
 * The middleware hands the handler an event holding only the records it owns
 * and its own view of the Lambda context, both leading to the invocation's
 * runner; `eachRecord` finds the runner there to run each record under the
 * chosen strategy. Without the middleware,
 * `eachRecord` falls back to a plain partial-batch runner.
 */
import type { NotStartedReason } from '../engine/settle.js';
import type { Context, SQSRecord } from 'aws-lambda';
import type { TransactionBuilder } from '../strategies/transaction/builder.js';
import { isRefusal, type PlainReader, type Refusal } from '../engine/source.js';
import { contextWith, stateOf } from '../engine/invocation-context.js';

/** What a per-record handler receives besides the record. */
export interface RecordContext {
  /** The business key (the message id when no middleware is in front). */
  readonly key: string;
  readonly messageId: string;
  /** The Lambda context of the invocation. */
  readonly context: Context;
  /** Delivery attempt of this message (SQS `ApproximateReceiveCount`), 1 on first delivery. */
  readonly attempt: number;
  /**
   * Aborts when the batch is answered without this record: at Middy's early
   * timeout (`timeoutEarlyInMillis`, with the reason Middy gives), or (its
   * `reason` a `LeaseLostError`) when the lease heartbeat
   * (`claim({ heartbeat })`) finds this record's claim lost, or cannot renew
   * it for a whole lease: stop before applying the effect.
   */
  readonly signal: AbortSignal;
}

/**
 * What a per-record handler of `eachRecord.inTransaction` receives: the
 * {@link RecordContext} and `tx`, whose writes commit in one
 * `TransactWriteItems` with the idempotency record (`strategy: transaction()`).
 */
export interface TransactionRecordContext extends RecordContext {
  readonly tx: TransactionBuilder;
}

/**
 * How the handler was called: its Lambda context, the signal Middy aborts at
 * its early timeout (when it gave one), and whether it is
 * `eachRecord.inTransaction` (its records are handed `tx`).
 */
export interface HandlerCall {
  readonly context: Context;
  readonly signal?: AbortSignal | undefined;
  readonly inTransaction?: boolean;
}

/** A per-record handler for {@link eachRecord}. Throw to fail the record. */
export type RecordHandler<TResult = unknown, TRecord = SQSRecord> = (record: TRecord, ctx: RecordContext) => Promise<TResult> | TResult;

/** A per-record handler for `eachRecord.inTransaction`: its context has `tx`. Throw to fail the record (nothing is written). */
export type TransactionRecordHandler<TResult = unknown, TRecord = SQSRecord> = (
  record: TRecord,
  ctx: TransactionRecordContext,
) => Promise<TResult> | TResult;

/**
 * The context a record's handler is handed: with `tx` for
 * `eachRecord.inTransaction`, which needs the strategy's builder (`tx`
 * undefined: the strategy is not `transaction()`, and the handler's writes
 * would never be sent: a `TypeError` naming both fixes, before the handler
 * runs); without it for `eachRecord`, whatever the strategy (a transaction
 * then commits the idempotency record alone).
 */
export function recordContext(
  base: Omit<RecordContext, 'signal'>,
  tx: TransactionBuilder | undefined,
  call: HandlerCall,
  middleware: string,
): Omit<RecordContext, 'signal'> | Omit<TransactionRecordContext, 'signal'> {
  if (call.inTransaction !== true) return base;
  if (tx === undefined) throw new TypeError(notInTransaction('eachRecord', middleware, true));
  return { ...base, tx };
}

/**
 * Why `runner.inTransaction` cannot commit its handler's writes (the
 * middleware in front has another strategy, or there is none: `unseen` says
 * what else may hide it), and the two ways out.
 */
export function notInTransaction(runner: string, middleware: string, inFront: boolean, unseen = ''): string {
  const why = inFront ? `the strategy of ${middleware} is not transaction()` : `no ${middleware} is in front of it${unseen}`;
  return `${runner}.inTransaction: ${why}, so the handler's tx writes would never be committed. Use ${middleware}({ strategy: transaction() }), or ${runner}(fn) (no tx) for a handler with nothing to commit.`;
}

/** Runs records of one invocation under a strategy. */
export interface BatchRunner<TRecord = SQSRecord> {
  /** The source the records come from: their ids and lanes (a plain runner's is a plain reader). */
  readonly source: PlainReader<TRecord, unknown>;
  /** The middleware's name, for errors. */
  readonly owner: string;
  /** The records to run, in delivery order. */
  readonly records: readonly TRecord[];
  /** A record is not started when the remaining time is under this. */
  readonly safetyMarginMs: number;
  /**
   * The records handed to the handler (default: `records`). The others are
   * later copies of a key that the runner decides itself, from their first
   * copy, without running the handler.
   */
  readonly ownedRecords?: readonly TRecord[];
  /** The ordered lane of a record (default: the source's lane; `undefined`: a lane of its own). */
  laneOf?(record: TRecord): string | undefined;
  /** Called once when `eachRecord` starts on the batch. */
  begin?(): void;
  /** Runs one record; resolves whether its FIFO group may go on. Never rejects. */
  execute(record: TRecord, fn: RecordHandler<unknown, TRecord>, call: HandlerCall): Promise<boolean>;
  skip(record: TRecord, reason: NotStartedReason): void;
  /** The ids of the records this runner was given that must come back. */
  failures(): string[];
}

/** One invocation's runner, with the message ids it owns. */
interface Registration {
  // The record type is the registering source's; each registration reads its events through that source.
  readonly runner: BatchRunner<unknown>;
  readonly ids: ReadonlySet<string>;
}

/** Where a registration is left: emptied once the batch is answered, so a view or copy kept past it finds nothing. */
interface Link {
  current: Registration | undefined;
}

// The runner travels with what this invocation made and handed on: the
// invocation's own view of the Lambda context (contextWith), and the event
// holding the records it owns. Nothing is put on the caller's event, context
// or records, so another invocation given the same objects (tests, local
// runners, Lambda Managed Instances) never finds this one. A middleware
// after ours may replace `request.event` (a parser) or copy the context:
// the view's link is an own enumerable property, so `{ ...context }` keeps
// it; the event's is not enumerable (the handler's own comparisons of the
// event never see it), so it is the second way only.
const LINK = Symbol('effectively-once: the batch invocation this was handed on by');

// The registrations of batches not yet answered in this process. Read only
// when neither the event nor the context leads to an invocation: a record
// one of them owns is then being run by a handler whose middleware after
// ours replaced both with new objects, and must not run plainly (under its
// message id, with no claim) while its invocation holds the claim. Each
// leaves it when its batch is answered: by our after or onError, or at a
// later middleware's early response (early-response.ts).
const unanswered = new Set<Registration>();

/**
 * Leaves the runner where `eachRecord` finds it for this invocation: on the
 * event handed on (made by the source's `withRecords`, ours) and on a view of
 * the Lambda context, which the caller hands the handler instead of its
 * own. Returns that view, and the step that takes the runner away again once
 * the batch is answered.
 */
export function attachRunner<TRecord, C>(
  event: object,
  context: C,
  runner: BatchRunner<TRecord>,
): { readonly context: C; readonly detach: () => void } {
  const ids = new Set(runner.records.map((r) => runner.source.read(r).id));
  const registration: Registration = { runner: runner as BatchRunner<unknown>, ids };
  const link: Link = { current: registration };
  unanswered.add(registration);
  Object.defineProperty(event, LINK, { value: link, configurable: true, enumerable: false, writable: false });
  // No context at all (a test calling the handler bare): the event is the only way.
  const view = typeof context === 'object' && context !== null ? contextWith(context, LINK, link, true) : context;
  const detach = () => {
    link.current = undefined;
    unanswered.delete(registration);
  };
  return { context: view, detach };
}

/**
 * The runner of the invocation this event belongs to, running the handler's
 * own record objects; `undefined` when no middleware registered one.
 *
 * @throws TypeError when a middleware registered state this event cannot be
 * matched to, or the event holds a record of a batch not yet answered that
 * neither the event nor the context leads to (never a silent plain run of
 * records a runner owns).
 */
export function runnerFor(event: unknown, context: unknown): BatchRunner<unknown> | undefined {
  const handedOn = stateOf<Link>(event, LINK);
  const registration = (handedOn ?? stateOf<Link>(context, LINK))?.current;
  if (registration === undefined) return refuseUnlinked(event);
  // Found through the context only: the event was replaced, and must still hold this invocation's records.
  if (handedOn === undefined && !idsOf(registration, event).some((id) => registration.ids.has(id))) {
    const records = registration.runner.source.records(event);
    if (isRefusal(records)) throw new TypeError(notRecords(registration, records));
    throw new TypeError(
      `eachRecord: the event holds none of the records ${registration.runner.owner} handed on (a middleware after it replaced the event or changed the message ids).`,
    );
  }
  return matchedRunner(registration, event);
}

/** No link: a plain run, unless a batch not yet answered owns one of the event's records. */
function refuseUnlinked(event: unknown): undefined {
  for (const registration of unanswered) {
    const owned = idsOf(registration, event).find((id) => registration.ids.has(id));
    if (owned === undefined) continue;
    const { owner } = registration.runner;
    throw new TypeError(
      `eachRecord: message ${owned} belongs to a batch ${owner} is running, but a middleware after ${owner} replaced both the event and the Lambda context with new objects, so eachRecord cannot reach its claims. Keep the context, or copy it ({ ...request.context }).`,
    );
  }
  return undefined;
}

const notRecords = (r: Registration, refusal: Refusal) =>
  `eachRecord: the event is ${refusal.refused} (a middleware after ${r.runner.owner} replaced it).`;

/** The ids of an event's records, read through the registration's source (none when it refuses the event). */
function idsOf(registration: Registration, event: unknown): string[] {
  const { source } = registration.runner;
  const records = source.records(event);
  return isRefusal(records) ? [] : records.map((r) => source.read(r).id);
}

/**
 * The handler's records by id. Every one must be a record the runner owns,
 * once: another one (added by a middleware) has no claim and no place in the
 * batch response, so running it would be running it unprotected.
 */
function handlerRecords(registration: Registration, event: unknown): Map<string, unknown> {
  const { source, owner } = registration.runner;
  const records = source.records(event);
  if (isRefusal(records)) throw new TypeError(notRecords(registration, records));
  const theirs = new Map<string, unknown>();
  for (const [i, record] of records.entries()) {
    const { id } = source.read(record);
    if (!registration.ids.has(id)) {
      throw new TypeError(
        `eachRecord: record ${i} of the event (message ${id}) is not one ${owner} handed on; a middleware after it must not add records.`,
      );
    }
    if (theirs.has(id)) throw new TypeError(`eachRecord: message ${id} is in the event twice.`);
    theirs.set(id, record);
  }
  return theirs;
}

/**
 * The runner, running the handler's own record objects (what a parser
 * produced) in the owned records' places. An owned record missing from the
 * event fails (it is never acknowledged without running), which also stops
 * the rest of its lane.
 */
function matchedRunner(registration: Registration, event: unknown): BatchRunner<unknown> {
  const { runner } = registration;
  const { source, owner } = runner;
  const theirs = handlerRecords(registration, event);
  const handed = runner.ownedRecords ?? runner.records;
  if (theirs.size === handed.length && handed.every((r) => theirs.get(source.read(r).id) === r)) return runner;
  return {
    source,
    owner,
    records: runner.records,
    ...(runner.ownedRecords === undefined ? {} : { ownedRecords: runner.ownedRecords }),
    safetyMarginMs: runner.safetyMarginMs,
    ...(runner.laneOf === undefined ? {} : { laneOf: (record: unknown) => runner.laneOf?.(record) }),
    begin: () => runner.begin?.(),
    execute(record, fn, call) {
      const { id } = source.read(record);
      const own = theirs.get(id);
      const run: RecordHandler<unknown, unknown> = own === undefined ? () => droppedBy(owner, id) : (_ours, ctx) => fn(own, ctx);
      return runner.execute(record, run, call);
    },
    skip: (record, reason) => runner.skip(record, reason),
    failures: () => runner.failures(),
  };
}

function droppedBy(owner: string, id: string): never {
  throw new TypeError(
    `eachRecord: message ${id} was removed from the event by a middleware after ${owner}; it comes back rather than being acknowledged unrun.`,
  );
}
