/**
 * What the lifecycle (admit -> run -> settle -> respond) needs to know about a
 * batch source, and nothing more. A source (SQS today; Kinesis and DynamoDB
 * Streams next) is one object of this shape: the lifecycle never reads an
 * event or a record any other way.
 */
import type { InvalidRecordError } from '../engine/errors.js';
import type { BatchLogLine } from '../observe/log.js';

/** A batch source as the lifecycle sees it: events of `TRecord`s, answered with a `TResponse`. */
export interface BatchSource<TEvent, TRecord, TResponse> {
  /** The `source` of the log line. */
  readonly name: BatchLogLine['source'];
  /** The middleware's name, for errors (`sqsIdempotency`). */
  readonly owner: string;
  /** The events it takes, for errors (`an SQS event`). */
  readonly eventKind: string;
  /**
   * Why the event is not one of this source's, or `undefined`. Only what no
   * per-record outcome can answer fails the whole event (a record that could
   * not be named in the response, a record from another source).
   */
  invalidEvent(event: unknown): string | undefined;
  /** The records of a valid event, in delivery order. */
  records(event: TEvent): readonly TRecord[];
  /** The event handed to the handler: the same event holding only these records. */
  withRecords(event: TEvent, records: readonly TRecord[]): TEvent;
  /** The records of any event a middleware may have replaced, without trusting its shape. */
  recordsOf(event: unknown): readonly unknown[] | undefined;
  /** A record's id in the response (SQS: the message id); `undefined` for a value that is not a record. */
  itemId(record: unknown): string | undefined;
  /** The ordered lane a record runs in (FIFO message group, stream shard); `undefined`: no order. */
  lane(record: TRecord): string | undefined;
  /**
   * A stream: the event source mapping resumes a lane from its lowest named
   * record, so the response names a lane's first failure and every record
   * after it, acknowledged copies included (SQS FIFO acknowledges those).
   */
  readonly resumesFromFirstFailure?: true;
  /** Delivery attempt of a record, 1 on first delivery. */
  attempt(record: TRecord): number;
  /** A record that cannot be read at all fails alone with this error (checked before the key function). */
  unreadable(record: TRecord): InvalidRecordError | undefined;
  /** The response naming exactly these records for retry. */
  respond(retry: readonly string[]): TResponse;
  /** The records a handler's own response names for retry (a handler run without `eachRecord`). */
  retriedIn(response: unknown): ReadonlySet<string>;
}

/** A record's id, for a record the source has already accepted. */
export function idOf<TRecord>(source: BatchSource<unknown, TRecord, unknown>, record: TRecord): string {
  const id = source.itemId(record);
  // invalidEvent refused every event with a record lacking an id, before anything ran.
  if (id === undefined) throw new TypeError(`${source.owner}: a record has no id.`);
  return id;
}

/**
 * The records with each id once, first copy kept, in delivery order. The same
 * record delivered twice in one event (SQS standard queues may do so) is one
 * delivery to decide: the response can name an id only once, and two copies
 * under one id would be taken for two deliveries of one key.
 */
export function distinctRecords<TRecord>(source: BatchSource<unknown, TRecord, unknown>, records: readonly TRecord[]): readonly TRecord[] {
  const seen = new Set<string>();
  return records.filter((record) => {
    const id = idOf(source, record);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/**
 * A source whose invocation carries one event (EventBridge): the event is the
 * record, a failure is thrown (the async retry takes over) and a duplicate
 * answers with the stored result.
 */
export interface EventSource<TEvent> {
  /** The `source` of the log line. */
  readonly name: BatchLogLine['source'];
  /** The middleware's name, for errors (`eventBridgeIdempotency`). */
  readonly owner: string;
  /** The events it takes, for errors (`an EventBridge event`). */
  readonly eventKind: string;
  /** Why the event is not one of this source's (what was expected), or `undefined`. */
  invalidEvent(event: unknown): string | undefined;
  /** The event's id, as the log line names it. */
  itemId(event: TEvent): string;
}
