/**
 * The link between a batch middleware (`sqsIdempotency`) and `eachRecord`.
 * The middleware hands the handler an event holding only the records it owns
 * and registers a runner for that invocation; `eachRecord` looks the runner
 * up to run each record under the chosen strategy. Without the middleware,
 * `eachRecord` falls back to a plain partial-batch runner.
 */
import type { NotStartedReason } from '../engine/settle.js';
import type { Context, SQSRecord } from 'aws-lambda';
import type { TransactionBuilder } from '../strategies/transaction/builder.js';
import { isRefusal, type PlainReader, type Refusal } from '../engine/source.js';

/** What a per-record handler receives besides the record. */
export interface RecordContext {
  /** The business key (the message id when no middleware is in front). */
  readonly key: string;
  readonly messageId: string;
  /**
   * Transaction builder: with `strategy: transaction()` its writes commit in
   * one `TransactWriteItems` with the idempotency record. With any other
   * strategy, using it throws (its writes would otherwise be silently lost).
   */
  readonly tx: TransactionBuilder;
  /** The Lambda context of the invocation. */
  readonly context: Context;
  /** Delivery attempt of this message (SQS `ApproximateReceiveCount`), 1 on first delivery. */
  readonly attempt: number;
  /**
   * Aborts (its `reason` a `LeaseLostError`) when the lease heartbeat
   * (`claim({ heartbeat })`) finds this record's claim lost, or cannot renew
   * it for a whole lease: stop before applying the effect. Never aborts
   * without a heartbeat, nor at the invocation's deadline.
   */
  readonly signal: AbortSignal;
}

/** A per-record handler for {@link eachRecord}. Throw to fail the record. */
export type RecordHandler<TResult = unknown, TRecord = SQSRecord> = (record: TRecord, ctx: RecordContext) => Promise<TResult> | TResult;

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
  execute(record: TRecord, fn: RecordHandler<unknown, TRecord>, context: Context): Promise<boolean>;
  /** Marks a record as not started. */
  skip(record: TRecord, reason: NotStartedReason): void;
  /** The ids of the records this runner was given that must come back. */
  failures(): string[];
}

/** One invocation's runner, with the message ids it owns, and where it was left. */
interface Registration {
  // The record type is the registering source's; each registration reads its events through that source.
  readonly runner: BatchRunner<unknown>;
  readonly ids: ReadonlySet<string>;
  readonly event: object;
  readonly context: object | undefined;
  /** The record objects handed on, marked with this registration. */
  readonly records: readonly object[];
}

// A middleware after ours may replace `request.event` (a parser, a
// normaliser), so the event we handed on is only the first way to find the
// runner; the Lambda context is the second. A context may be shared by
// concurrent invocations (tests, local runners): among its runners, the one
// that owns the event's message ids is this invocation's. The record objects
// we handed on are marked too, only to refuse a plain run of records a
// runner owns when both the event and the context were replaced. The marks
// are non-enumerable: a copy of the event, the context or a record does not
// carry them, and JSON, `Object.keys` and equality checks do not see them.
const ON_EVENT = Symbol('effectively-once: the invocation this event was handed on by');
const ON_CONTEXT = Symbol('effectively-once: the invocations running on this context');
const ON_RECORD = Symbol('effectively-once: the invocations this record was handed on by');

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

function markOf<T>(target: unknown, slot: symbol): T | undefined {
  return isObject(target) ? ((target as Record<symbol, unknown>)[slot] as T | undefined) : undefined;
}

/** Puts a mark on an object we were handed or made (never on one that refuses new properties). */
function mark(target: object, slot: symbol, value: unknown): boolean {
  if (!Object.isExtensible(target)) return false;
  Object.defineProperty(target, slot, { value, configurable: true, enumerable: false, writable: true });
  return true;
}

/** Whether `target` holds a set under `slot`, or can be given one. */
const canJoin = (target: object, slot: symbol) => markOf(target, slot) !== undefined || Object.isExtensible(target);

/** Adds `registration` to the set marked on `target` (see {@link canJoin}). */
function join(target: object, slot: symbol, registration: Registration): void {
  const joined = markOf<Set<Registration>>(target, slot);
  if (joined === undefined) mark(target, slot, new Set([registration]));
  else joined.add(registration);
}

/** Removes `registration` from the set marked on `target`, and the mark once it is empty. */
function leave(target: object, slot: symbol, registration: Registration): void {
  const joined = markOf<Set<Registration>>(target, slot);
  if (joined === undefined) return;
  joined.delete(registration);
  if (joined.size === 0) delete (target as Record<symbol, unknown>)[slot];
}

/**
 * Leaves the runner where `eachRecord` finds it for this invocation (the
 * event handed on, the Lambda context, the records); returns the step that
 * takes it away again once the batch is answered, so that a later
 * invocation on the same context or records does not find it.
 */
export function attachRunner<TRecord>(event: object, context: unknown, runner: BatchRunner<TRecord>): () => void {
  const records: object[] = runner.records.flatMap((r) => (isObject(r) ? [r] : []));
  const registration: Registration = {
    runner: runner as BatchRunner<unknown>,
    ids: new Set(runner.records.map((r) => runner.source.read(r).id)),
    event,
    context: isObject(context) && canJoin(context, ON_CONTEXT) ? context : undefined,
    records: records.filter((record) => canJoin(record, ON_RECORD)),
  };
  mark(event, ON_EVENT, registration);
  if (registration.context !== undefined) join(registration.context, ON_CONTEXT, registration);
  for (const record of registration.records) join(record, ON_RECORD, registration);
  return () => {
    if (markOf(event, ON_EVENT) === registration) delete (event as Record<symbol, unknown>)[ON_EVENT];
    if (registration.context !== undefined) leave(registration.context, ON_CONTEXT, registration);
    for (const record of registration.records) leave(record, ON_RECORD, registration);
  };
}

/**
 * The runner of the invocation this event belongs to, running the handler's
 * own record objects; `undefined` when no middleware registered one.
 *
 * @throws TypeError when a middleware registered state this event cannot be
 * matched to (never a silent plain run of records a runner owns).
 */
export function runnerFor(event: unknown, context: unknown): BatchRunner<unknown> | undefined {
  const registration = registrationFor(event, context);
  return registration === undefined ? undefined : matchedRunner(registration, event);
}

/**
 * The record-like objects one level into an event (an array of records, or
 * an object of arrays of them): where a marked record may be, whatever the
 * source's event shape.
 */
function candidates(event: unknown): unknown[] {
  if (!isObject(event)) return [];
  return Object.values(event).flatMap((v: unknown) => {
    if (Array.isArray(v)) return v;
    return isObject(v) ? Object.values(v).flatMap((w: unknown) => (Array.isArray(w) ? w : [])) : [];
  });
}

function registrationFor(event: unknown, context: unknown): Registration | undefined {
  const exact = markOf<Registration>(event, ON_EVENT);
  if (exact !== undefined) return exact;
  const owns = (r: Registration) => idsOf(r, event).some((id) => r.ids.has(id));
  const onContext = [...(markOf<Set<Registration>>(context, ON_CONTEXT) ?? [])];
  if (onContext.length === 0) {
    const marked = candidates(event).flatMap((record) => [...(markOf<Set<Registration>>(record, ON_RECORD) ?? [])]);
    const owner = marked.find(owns);
    if (owner === undefined) return undefined;
    throw new TypeError(
      `eachRecord: ${owner.runner.owner} owns message ${idsOf(owner, event).find((id) => owner.ids.has(id))}, but neither the event nor the context is the one it handed on; a middleware after it must not replace both.`,
    );
  }
  const owners = onContext.filter(owns);
  if (owners.length === 1 && owners[0] !== undefined) return owners[0];
  const some = onContext[0];
  const records = some?.runner.source.records(event);
  if (some !== undefined && records !== undefined && isRefusal(records)) throw new TypeError(notRecords(some, records));
  throw new TypeError(
    owners.length === 0
      ? `eachRecord: the event holds none of the records ${some?.runner.owner} handed on (a middleware after it replaced the event or changed the message ids).`
      : `eachRecord: the event matches more than one ${some?.runner.owner} invocation sharing this context; it cannot tell which one it belongs to.`,
  );
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
    execute(record, fn, context) {
      const { id } = source.read(record);
      const own = theirs.get(id);
      const run: RecordHandler<unknown, unknown> = own === undefined ? () => droppedBy(owner, id) : (_ours, ctx) => fn(own, ctx);
      return runner.execute(record, run, context);
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
