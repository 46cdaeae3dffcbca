/**
 * Kinesis and DynamoDB Streams as batch sources, built by one factory: `Records` of one `eventSource`, a record's id
 * its sequence number, the `batchItemFailures` response; each spec says where the sequence number sits and the lane.
 * Each comes twice: its plain reader (`kinesisRecords`), all a plain `eachRecord` needs, and the middleware's source
 * (`kinesisSource`), which adds the record checks.
 */
import { behindFailures } from '../../batch/stream-order.js';
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
} from 'aws-lambda';
import { BodyParseError, type InvalidRecordError } from '../../engine/errors.js';
import { isPlainObject } from '../../engine/options.js';
import type { BatchSource, PlainReader, RecordFacts, Refusal } from '../../engine/source.js';
import { dynamoDBImages, kinesisDataError } from './data.js';

/** The partial batch response of both stream sources (`KinesisStreamBatchResponse` and `DynamoDBBatchResponse` have this shape). */
interface StreamsBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/** What one stream source adds to the shared shape (the record checks come apart: see {@link streamSource}). */
interface StreamSpec<TRecord> {
  /** The source's name (`kinesis`). */
  readonly name: string;
  /** Its events, for errors (`a Kinesis stream event`). */
  readonly eventKind: string;
  /** The records' `eventSource` (`aws:kinesis`). */
  readonly eventSource: string;
  /** Where the sequence number sits: the record's object, then its field (`['kinesis', 'sequenceNumber']`). */
  readonly sequenceAt: readonly [string, string];
  /** The ordered lane of a record: its shard. */
  lane(record: TRecord): string;
}

/**
 * What `eachRecord` reads of a stream's events with no middleware in front
 * (see `PlainReader`). An event is refused as a whole only for a record
 * without a sequence number (it cannot be named in the response) or one
 * from another source (the function is wired to the wrong trigger). Stream
 * records carry no delivery count: the attempt is 1.
 */
function streamRecords<TRecord, TResponse extends StreamsBatchResponse>(spec: StreamSpec<TRecord>): PlainReader<TRecord, TResponse> {
  const [container, field] = spec.sequenceAt;
  const sequenceOf = (record: unknown): string | undefined => {
    const inner: unknown = isPlainObject(record) ? record[container] : undefined;
    const sequence: unknown = isPlainObject(inner) ? inner[field] : undefined;
    return typeof sequence === 'string' && sequence.length > 0 ? sequence : undefined;
  };
  const refuse = (why: string): Refusal => ({ refused: `not ${spec.eventKind}: ${why}` });
  return {
    name: spec.name,
    records(event) {
      const records: unknown = isPlainObject(event) ? event['Records'] : undefined;
      if (!Array.isArray(records)) return refuse('it has no Records array');
      for (const [i, record] of records.entries()) {
        const source: unknown = isPlainObject(record) ? record['eventSource'] : undefined;
        if (source !== undefined && source !== spec.eventSource)
          return refuse(`record ${i} comes from ${JSON.stringify(source)}, not "${spec.eventSource}"`);
        if (sequenceOf(record) === undefined) return refuse(`record ${i} has no string ${container}.${field}`);
      }
      return records as TRecord[];
    },
    // `records` refused every event with a record lacking its sequence number.
    read: (record) => ({ id: sequenceOf(record) ?? '', lane: spec.lane(record), attempt: 1 }),
    // The event source mapping checkpoints before the lowest sequence number named.
    respond: (retry) => ({ batchItemFailures: retry.map((itemIdentifier) => ({ itemIdentifier })) }) as TResponse,
  };
}

/** A stream source: its plain reader, with why a record cannot be read at all, `withRecords` and `retriedIn`. */
function streamSource<TEvent extends { Records: TRecord[] }, TRecord, TResponse extends StreamsBatchResponse>(
  plain: PlainReader<TRecord, TResponse>,
  unreadable: (record: TRecord) => InvalidRecordError | undefined,
): BatchSource<TEvent, TRecord, TResponse> {
  return {
    ...plain,
    withRecords: (event, records) => ({ ...event, Records: [...records] }),
    read: (record): RecordFacts => ({ ...plain.read(record), unreadable: unreadable(record) }),
    behindFailures,
    retriedIn(response) {
      const failures = (response as Partial<StreamsBatchResponse> | undefined)?.batchItemFailures ?? [];
      return new Set(failures.map((f) => f.itemIdentifier));
    },
  };
}

/**
 * Kinesis: a record's id is `kinesis.sequenceNumber`; its lane is its shard,
 * the part of `eventID` (`shardId-000000000000:<sequenceNumber>`) before the
 * `:`; a record without one falls back to the stream, so records are never
 * run out of order.
 */
export const kinesisRecords = /* @__PURE__ */ streamRecords<KinesisStreamRecord, KinesisStreamBatchResponse>({
  name: 'kinesis',
  eventKind: 'a Kinesis stream event',
  eventSource: 'aws:kinesis',
  sequenceAt: ['kinesis', 'sequenceNumber'],
  lane(record) {
    const eventID: unknown = record.eventID;
    const colon = typeof eventID === 'string' ? eventID.indexOf(':') : -1;
    return colon > 0 ? (eventID as string).slice(0, colon) : String(record.eventSourceARN ?? 'stream');
  },
});

/** Kinesis as a batch source: a record without a `kinesis` payload, or whose data is not base64, fails alone. */
export const kinesisSource = /* @__PURE__ */ streamSource<KinesisStreamEvent, KinesisStreamRecord, KinesisStreamBatchResponse>(
  kinesisRecords,
  (record) => {
    if (!isPlainObject(record.kinesis)) return new BodyParseError('Kinesis record has no kinesis payload.');
    // Checked, not decoded: the key function and the handler decode it when they read it.
    return kinesisDataError(record);
  },
);

function dynamoDBUnreadable(record: DynamoDBRecord): InvalidRecordError | undefined {
  if (!isPlainObject(record.dynamodb))
    return new BodyParseError(`DynamoDB stream record ${record.eventID ?? '(no eventID)'} has no dynamodb change.`);
  try {
    // Numbers wrapped: a valid image with a number beyond 2^53 is readable (the handler chooses how).
    dynamoDBImages(record, { wrapNumbers: true });
    return undefined;
  } catch (err) {
    return err as BodyParseError;
  }
}

/**
 * DynamoDB Streams: a record's id is `dynamodb.SequenceNumber`. Its records
 * name no shard, but Lambda reads each shard on its own, so one invocation's
 * batch comes from one shard: the lane is the stream (`eventSourceARN`),
 * which keeps the whole batch in sequence order.
 */
export const dynamoDBStreamsRecords = /* @__PURE__ */ streamRecords<DynamoDBRecord, DynamoDBBatchResponse>({
  name: 'dynamodb-streams',
  eventKind: 'a DynamoDB Streams event',
  eventSource: 'aws:dynamodb',
  sequenceAt: ['dynamodb', 'SequenceNumber'],
  lane: (record) => record.eventSourceARN ?? 'stream',
});

/** DynamoDB Streams as a batch source: a record without a `dynamodb` change, or with an image that is not one, fails alone. */
export const dynamoDBStreamsSource = /* @__PURE__ */ streamSource<DynamoDBStreamEvent, DynamoDBRecord, DynamoDBBatchResponse>(
  dynamoDBStreamsRecords,
  dynamoDBUnreadable,
);
