/**
 * Lambda stream records, shaped exactly as an event source mapping hands them
 * to a function (Kinesis: `aws:kinesis`, DynamoDB Streams: `aws:dynamodb`),
 * built by hand for unit tests. (The stream poller's records from
 * `GetRecords` are converted in scripts/sim/stream-records.ts.)
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { testingDefaults } from './defaults.js';

/** Options of {@link kinesisStreamRecord}. */
export interface KinesisStreamRecordOptions {
  /** The payload: bytes as they are, a string as UTF-8, anything else as its JSON text. */
  readonly data: unknown;
  readonly sequenceNumber: string;
  /** Default `shardId-000000000000`. */
  readonly shardId?: string;
  /** Default `pk`. */
  readonly partitionKey?: string;
  /** Default: a stream named `stream` in the default region and account. */
  readonly streamArn?: string;
  /** Epoch ms the record reached the stream; default now. */
  readonly arrivedAt?: number;
}

/** A payload's bytes: bytes as they are, a string as UTF-8, anything else as its JSON text. */
export const payloadBytes = (data: unknown): Buffer =>
  data instanceof Uint8Array ? Buffer.from(data) : Buffer.from(typeof data === 'string' ? data : JSON.stringify(data), 'utf8');

const regionOf = (arn: string): string => arn.split(':')[3] ?? testingDefaults.region;

/**
 * A Kinesis record as Lambda delivers it: `data` in base64, `eventID` of
 * `shardId:sequenceNumber`, the arrival time in epoch seconds.
 *
 * @example
 * ```ts
 * import { kinesisStreamRecord } from 'effectively-once/testing';
 * const record = kinesisStreamRecord({ data: { orderNo: 'o-1' }, sequenceNumber: '1' });
 * console.log(record.eventID, record.kinesis.data); // shardId-000000000000:1 eyJvcmRlck5vIjoiby0xIn0=
 * ```
 */
export function kinesisStreamRecord(options: KinesisStreamRecordOptions): KinesisStreamRecord {
  const streamArn = options.streamArn ?? `arn:aws:kinesis:${testingDefaults.region}:${testingDefaults.accountId}:stream/stream`;
  const shardId = options.shardId ?? 'shardId-000000000000';
  return {
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: options.partitionKey ?? 'pk',
      sequenceNumber: options.sequenceNumber,
      data: payloadBytes(options.data).toString('base64'),
      approximateArrivalTimestamp: (options.arrivedAt ?? Date.now()) / 1000,
    },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `${shardId}:${options.sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: `arn:aws:iam::${testingDefaults.accountId}:role/lambda-role`,
    awsRegion: regionOf(streamArn),
    eventSourceARN: streamArn,
  };
}

/** Options of {@link dynamoDBStreamRecord}. */
export interface DynamoDBStreamRecordOptions {
  readonly sequenceNumber: string;
  /** Default `INSERT`, or `MODIFY` with both images, `REMOVE` with only the old one. */
  readonly eventName?: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly keys: Record<string, AttributeValue>;
  readonly newImage?: Record<string, AttributeValue>;
  readonly oldImage?: Record<string, AttributeValue>;
  /** Default: a random UUID, as DynamoDB Streams gives. */
  readonly eventID?: string;
  /** Default: a table named `table`'s stream in the default region and account. */
  readonly streamArn?: string;
  /** Epoch ms of the change; default now. */
  readonly changedAt?: number;
}

function eventNameOf(options: DynamoDBStreamRecordOptions): 'INSERT' | 'MODIFY' | 'REMOVE' {
  if (options.eventName !== undefined) return options.eventName;
  if (options.newImage === undefined) return 'REMOVE';
  return options.oldImage === undefined ? 'INSERT' : 'MODIFY';
}

/**
 * A DynamoDB Streams record as Lambda delivers it (images in DynamoDB JSON,
 * `ApproximateCreationDateTime` in epoch seconds, `NEW_AND_OLD_IMAGES`).
 *
 * @example
 * ```ts
 * import { dynamoDBStreamRecord } from 'effectively-once/testing';
 * const record = dynamoDBStreamRecord({ sequenceNumber: '100', keys: { pk: { S: 'o-1' } }, newImage: { pk: { S: 'o-1' } } });
 * console.log(record.eventName, record.dynamodb?.SequenceNumber); // INSERT 100
 * ```
 */
export function dynamoDBStreamRecord(options: DynamoDBStreamRecordOptions): DynamoDBRecord {
  const streamArn =
    options.streamArn ??
    `arn:aws:dynamodb:${testingDefaults.region}:${testingDefaults.accountId}:table/table/stream/2024-01-01T00:00:00.000`;
  const images = { NewImage: options.newImage, OldImage: options.oldImage };
  const size = JSON.stringify([options.keys, images]).length;
  return {
    eventID: options.eventID ?? randomUUID().replaceAll('-', ''),
    eventName: eventNameOf(options),
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: regionOf(streamArn),
    dynamodb: {
      ApproximateCreationDateTime: Math.floor((options.changedAt ?? Date.now()) / 1000),
      Keys: options.keys,
      ...(options.newImage === undefined ? {} : { NewImage: options.newImage }),
      ...(options.oldImage === undefined ? {} : { OldImage: options.oldImage }),
      SequenceNumber: options.sequenceNumber,
      SizeBytes: size,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
    eventSourceARN: streamArn,
  };
}

/**
 * A `KinesisStreamEvent` holding `records` (copied).
 *
 * @example
 * ```ts
 * import { kinesisStreamEvent, kinesisStreamRecord } from 'effectively-once/testing';
 * console.log(kinesisStreamEvent([kinesisStreamRecord({ data: 'a', sequenceNumber: '1' })]).Records.length); // 1
 * ```
 */
export function kinesisStreamEvent(records: readonly KinesisStreamRecord[]): KinesisStreamEvent {
  return { Records: [...records] };
}

/**
 * A `DynamoDBStreamEvent` holding `records` (copied).
 *
 * @example
 * ```ts
 * import { dynamoDBStreamEvent, dynamoDBStreamRecord } from 'effectively-once/testing';
 * const event = dynamoDBStreamEvent([dynamoDBStreamRecord({ sequenceNumber: '1', keys: { pk: { S: 'a' } } })]);
 * console.log(event.Records.length); // 1
 * ```
 */
export function dynamoDBStreamEvent(records: readonly DynamoDBRecord[]): DynamoDBStreamEvent {
  return { Records: [...records] };
}
