/**
 * What the lifecycle (admit -> run -> settle -> respond) needs to know about a source, each member one decision the
 * source makes; the lifecycle never reads an event or a record any other way.
 */
import type { InvalidRecordError } from './errors.js';
import type { RecordOutcome } from './outcomes.js';

/**
 * Why an event is not one of a source's events: the words after "the event
 * is" in the error (`not an SQS event: it has no Records array`).
 */
export interface Refusal {
  readonly refused: string;
}

/** What a source reads from one of its records. */
export interface RecordFacts {
  /** The record's id in the response (SQS: the message id). */
  readonly id: string;
  /** The ordered lane it runs in (FIFO message group, stream shard); `undefined`: no order. */
  readonly lane: string | undefined;
  /** Its delivery attempt, 1 on first delivery. */
  readonly attempt: number;
  /** Why it cannot be read at all, or `undefined`: it then fails alone with this error (checked before the key function). */
  readonly unreadable: InvalidRecordError | undefined;
}

/** A batch source as the lifecycle sees it: events of `TRecord`s, answered with a `TResponse`. */
export interface BatchSource<TEvent, TRecord, TResponse> {
  /** The source's name: the `source` of the log line and of the metrics (`sqs`). */
  readonly name: string;
  /**
   * The records of an event, in delivery order, or why it is not one of this
   * source's events. Nothing is trusted: it also reads an event a middleware
   * after ours replaced. Only what no per-record outcome can answer refuses
   * the whole event (a record that could not be named in the response, a
   * record from another source); a record it returns can be read.
   */
  records(event: unknown): readonly TRecord[] | Refusal;
  /** The event handed to the handler: the same event holding only these records. */
  withRecords(event: TEvent, records: readonly TRecord[]): TEvent;
  /** A record's id, lane, attempt, and whether it can be read at all (see {@link readOnce}). */
  read(record: TRecord): RecordFacts;
  /**
   * A stream: the event source mapping resumes a lane from its lowest named
   * record, so the response names a lane's first failure and every record
   * after it, acknowledged copies included (SQS FIFO acknowledges those).
   * This step (batch/stream-order.ts) turns the outcomes behind a failure
   * into retries; a source without it (SQS) does not bundle it.
   */
  readonly behindFailures?: (
    source: BatchSource<unknown, TRecord, unknown>,
    records: readonly TRecord[],
    outcomes: readonly RecordOutcome[],
  ) => readonly RecordOutcome[];
  /** The response naming exactly these records (by id) for retry. */
  respond(retry: readonly string[]): TResponse;
  /** The ids of the records a handler's own response names for retry (a handler run without `eachRecord`). */
  retriedIn(response: unknown): ReadonlySet<string>;
}

/**
 * What `eachRecord` reads of a source with no middleware in front: the
 * records, each one's id, lane and attempt, and the response. A
 * {@link BatchSource} is one; each adapter also exports its own, without the
 * record checks, `withRecords` and `retriedIn`, so a bundle whose
 * `eachRecord` may meet that source's events carries only these.
 */
export interface PlainReader<TRecord = unknown, TResponse = unknown> {
  readonly name: string;
  records(event: unknown): readonly TRecord[] | Refusal;
  read(record: TRecord): Omit<RecordFacts, 'unreadable'>;
  respond(retry: readonly string[]): TResponse;
}

/** Whether `records` said why the event is refused. */
export function isRefusal<T>(records: readonly T[] | Refusal): records is Refusal {
  return 'refused' in records;
}

export function idOf<TRecord>(source: BatchSource<unknown, TRecord, unknown>, record: TRecord): string {
  return source.read(record).id;
}

/**
 * The source with each record object read once. The lifecycle asks for a
 * record's id and lane many times, and reading may decode it (a DynamoDB
 * image, a Kinesis or Kafka payload's base64). One per invocation: it holds
 * that invocation's records, and is never shared with another.
 */
export function readOnce<TEvent, TRecord, TResponse>(
  source: BatchSource<TEvent, TRecord, TResponse>,
): BatchSource<TEvent, TRecord, TResponse> {
  const known = new WeakMap<object, RecordFacts>();
  return {
    ...source,
    read(record) {
      if (typeof record !== 'object' || record === null) return source.read(record);
      let facts = known.get(record);
      if (facts === undefined) {
        facts = source.read(record);
        known.set(record, facts);
      }
      return facts;
    },
  };
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
export interface EventSource {
  /** The source's name: the `source` of the log line and of the metrics (`eventbridge`). */
  readonly name: string;
  /** The event's id, as the log line names it, or why it is not one of this source's events. */
  id(event: unknown): string | Refusal;
}

/** A source `eachRecord` runs with no middleware in front, and the middleware that would protect it (its errors name it). */
export interface PlainSource {
  readonly source: PlainReader;
  readonly middleware: string;
}
