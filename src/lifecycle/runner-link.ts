/**
 * The link between `sqsIdempotency` and `eachRecord`. The middleware hands
 * the handler an event holding only the records it owns and registers a
 * runner for that invocation; `eachRecord` looks the runner up to run each
 * record under the chosen strategy. Without the middleware, `eachRecord`
 * falls back to a plain partial-batch runner.
 */
import type { Context, SQSBatchItemFailure, SQSEvent, SQSRecord } from 'aws-lambda';
import type { TransactionBuilder } from '../transaction.js';

/** What a per-record handler receives besides the record. */
export interface RecordContext {
  /** The business key (the message id when no middleware is in front). */
  readonly key: string;
  readonly messageId: string;
  /**
   * Transaction builder: with `strategy: 'transaction'` its writes commit in
   * one `TransactWriteItems` with the idempotency record. With any other
   * strategy, using it throws (its writes would otherwise be silently lost).
   */
  readonly tx: TransactionBuilder;
  /** The Lambda context of the invocation. */
  readonly context: Context;
  /** Delivery attempt of this message (SQS `ApproximateReceiveCount`), 1 on first delivery. */
  readonly attempt: number;
}

/** A per-record handler for {@link eachRecord}. Throw to fail the record. */
export type RecordHandler<TResult = unknown> = (record: SQSRecord, ctx: RecordContext) => Promise<TResult> | TResult;

/** Why a record was not started. */
export type NotStartedReason = 'deadline' | 'group-failed';

/** Runs records of one invocation under a strategy. */
export interface BatchRunner {
  /** The records to run, in delivery order. */
  readonly records: readonly SQSRecord[];
  /** A record is not started when the remaining time is under this. */
  readonly safetyMarginMs: number;
  /**
   * The records handed to the handler (default: `records`). The others are
   * later copies of a key that the runner decides itself, from their first
   * copy, without running the handler.
   */
  readonly ownedRecords?: readonly SQSRecord[];
  /** The ordered lane of a record (default: its FIFO message group; `undefined`: a lane of its own). */
  laneOf?(record: SQSRecord): string | undefined;
  /** Called once when `eachRecord` starts on the batch. */
  begin?(): void;
  /** Runs one record; resolves whether its FIFO group may go on. Never rejects. */
  execute(record: SQSRecord, fn: RecordHandler, context: Context): Promise<boolean>;
  /** Marks a record as not started. */
  skip(record: SQSRecord, reason: NotStartedReason): void;
  /** The partial batch response for the records this runner was given. */
  failures(): SQSBatchItemFailure[];
}

/** One invocation's runner, with the message ids it owns. */
interface Registration {
  readonly runner: BatchRunner;
  readonly ids: ReadonlySet<string>;
  readonly event: object;
  readonly context: object | undefined;
}

// A middleware after ours may replace `request.event` (a parser, a
// normaliser), so the event we handed on is only the first way to find the
// runner; the Lambda context is the second. A context may be shared by
// concurrent invocations (tests, local runners): among its runners, the one
// that owns the event's message ids is this invocation's.
const byEvent = new WeakMap<object, Registration>();
const byContext = new WeakMap<object, Set<Registration>>();
// Keeps a registration alive as long as its runner (the middleware holds it until the batch is answered).
const byRunner = new WeakMap<BatchRunner, Registration>();
// Every registered runner, weakly: to refuse a plain run of records a runner owns when the context was replaced too.
const live = new Set<WeakRef<Registration>>();

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** Registers the runner that `eachRecord` uses for this invocation (the event handed on, and the Lambda context). */
export function attachRunner(event: SQSEvent, context: unknown, runner: BatchRunner): void {
  const registration: Registration = {
    runner,
    ids: new Set(runner.records.map((r) => r.messageId)),
    event,
    context: isObject(context) ? context : undefined,
  };
  byEvent.set(event, registration);
  byRunner.set(runner, registration);
  if (registration.context !== undefined) {
    const shared = byContext.get(registration.context) ?? new Set<Registration>();
    byContext.set(registration.context, shared.add(registration));
  }
  for (const ref of live) if (ref.deref() === undefined) live.delete(ref);
  live.add(new WeakRef(registration));
}

/** Removes the runner once its batch is answered: a later invocation on the same context must not find it. */
export function detachRunner(runner: BatchRunner): void {
  const registration = byRunner.get(runner);
  if (registration === undefined) return;
  byRunner.delete(runner);
  byEvent.delete(registration.event);
  if (registration.context !== undefined) byContext.get(registration.context)?.delete(registration);
  for (const ref of live) if (ref.deref() === registration) live.delete(ref);
}

/**
 * The runner of the invocation this event belongs to, running the handler's
 * own record objects; `undefined` when no middleware registered one.
 *
 * @throws TypeError when a middleware registered state this event cannot be
 * matched to (never a silent plain run of records a runner owns).
 */
export function runnerFor(event: unknown, context: unknown): BatchRunner | undefined {
  const registration = registrationFor(event, context);
  return registration === undefined ? undefined : matchedRunner(registration, event);
}

function registrationFor(event: unknown, context: unknown): Registration | undefined {
  const exact = isObject(event) ? byEvent.get(event) : undefined;
  if (exact !== undefined) return exact;
  const ids = messageIdsOf(event);
  const onContext = [...((isObject(context) ? byContext.get(context) : undefined) ?? [])];
  if (onContext.length === 0) {
    const owner = [...live].map((ref) => ref.deref()).find((r) => r !== undefined && ids.some((id) => r.ids.has(id)));
    if (owner === undefined) return undefined;
    throw new TypeError(
      `eachRecord: sqsIdempotency owns message ${ids.find((id) => owner.ids.has(id))}, but neither the event nor the context is the one it handed on; a middleware after it must not replace both.`,
    );
  }
  const owners = onContext.filter((r) => ids.some((id) => r.ids.has(id)));
  if (owners.length === 1 && owners[0] !== undefined) return owners[0];
  if (recordsOf(event) === undefined) throw new TypeError(noRecords);
  throw new TypeError(
    owners.length === 0
      ? 'eachRecord: the event holds none of the records sqsIdempotency handed on (a middleware after it replaced the event or changed the message ids).'
      : 'eachRecord: the event matches more than one sqsIdempotency invocation sharing this context; it cannot tell which one it belongs to.',
  );
}

const noRecords = 'eachRecord: the event has no Records array (a middleware after sqsIdempotency replaced it).';

/** The event's Records array, if it has one. */
function recordsOf(event: unknown): unknown[] | undefined {
  const records: unknown = isObject(event) ? (event as { Records?: unknown }).Records : undefined;
  return Array.isArray(records) ? records : undefined;
}

/** The string message ids of an event's records (none when it has no Records array). */
function messageIdsOf(event: unknown): string[] {
  return (recordsOf(event) ?? []).flatMap((r: unknown) => {
    const id: unknown = isObject(r) ? (r as { messageId?: unknown }).messageId : undefined;
    return typeof id === 'string' ? [id] : [];
  });
}

/**
 * The handler's records by message id. Every one must be a record the runner
 * owns, once: another one (added by a middleware) has no claim and no place in
 * the batch response, so running it would be running it unprotected.
 */
function handlerRecords(registration: Registration, event: unknown): Map<string, SQSRecord> {
  const records = recordsOf(event);
  if (records === undefined) throw new TypeError(noRecords);
  const theirs = new Map<string, SQSRecord>();
  for (const [i, record] of records.entries()) {
    const id: unknown = isObject(record) ? (record as { messageId?: unknown }).messageId : undefined;
    if (typeof id !== 'string' || !registration.ids.has(id)) {
      throw new TypeError(`eachRecord: record ${i} of the event (message ${String(id)}) is not one sqsIdempotency handed on; a middleware after it must not add records.`);
    }
    if (theirs.has(id)) throw new TypeError(`eachRecord: message ${id} is in the event twice.`);
    theirs.set(id, record as SQSRecord);
  }
  return theirs;
}

/**
 * The runner, running the handler's own record objects (what a parser
 * produced) in the owned records' places. An owned record missing from the
 * event fails (it is never acknowledged without running), which also stops
 * the rest of its FIFO group.
 */
function matchedRunner(registration: Registration, event: unknown): BatchRunner {
  const { runner } = registration;
  const theirs = handlerRecords(registration, event);
  const handed = runner.ownedRecords ?? runner.records;
  if (theirs.size === handed.length && handed.every((r) => theirs.get(r.messageId) === r)) return runner;
  return {
    records: runner.records,
    ...(runner.ownedRecords === undefined ? {} : { ownedRecords: runner.ownedRecords }),
    safetyMarginMs: runner.safetyMarginMs,
    ...(runner.laneOf === undefined ? {} : { laneOf: (record: SQSRecord) => runner.laneOf?.(record) }),
    begin: () => runner.begin?.(),
    execute(record, fn, context) {
      const own = theirs.get(record.messageId);
      const run: RecordHandler = own === undefined ? () => droppedBy(record) : (_ours, ctx) => fn(own, ctx);
      return runner.execute(record, run, context);
    },
    skip: (record, reason) => runner.skip(record, reason),
    failures: () => runner.failures(),
  };
}

function droppedBy(record: SQSRecord): never {
  throw new TypeError(`eachRecord: message ${record.messageId} was removed from the event by a middleware after sqsIdempotency; it comes back rather than being acknowledged unrun.`);
}
