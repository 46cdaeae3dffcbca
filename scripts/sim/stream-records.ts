/**
 * The stream poller's records: what `GetRecords` returned (Kinesis, DynamoDB
 * Streams), as Lambda delivers it to a function. Type-only SDK imports.
 */
import type { AttributeValue as SdkStreamAttribute, _Record as SdkStreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { _Record as SdkKinesisRecord } from '@aws-sdk/client-kinesis';
import type { AttributeValue, DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { kinesisStreamRecord } from '../../src/testing/stream-records.js';

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/**
 * The Lambda record of a Kinesis `GetRecords` record read from `shardId` of `streamArn`.
 *
 * @example
 * ```ts
 * import { fromKinesisRecord } from './stream-records.js';
 * const record = fromKinesisRecord(
 *   { SequenceNumber: '7', PartitionKey: 'a', Data: new TextEncoder().encode('hi'), ApproximateArrivalTimestamp: new Date() },
 *   'shardId-000000000001',
 *   'arn:aws:kinesis:us-east-1:000000000000:stream/s',
 * );
 * console.log(record.eventID); // shardId-000000000001:7
 * ```
 */
export function fromKinesisRecord(record: SdkKinesisRecord, shardId: string, streamArn: string): KinesisStreamRecord {
  return kinesisStreamRecord({
    data: record.Data ?? new Uint8Array(),
    sequenceNumber: record.SequenceNumber ?? '',
    shardId,
    partitionKey: record.PartitionKey ?? '',
    streamArn,
    arrivedAt: record.ApproximateArrivalTimestamp?.getTime() ?? Date.now(),
  });
}

/** An SDK (binary as bytes) attribute value in Lambda's JSON form (binary as base64). */
function lambdaAttribute(value: SdkStreamAttribute): AttributeValue {
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(lambdaAttribute) };
  if (value.M !== undefined) return { M: lambdaImage(value.M) };
  return value as AttributeValue;
}

function lambdaImage(image: Record<string, SdkStreamAttribute>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, lambdaAttribute(value)]));
}

/**
 * The Lambda record of a DynamoDB Streams `GetRecords` record read from `streamArn`.
 *
 * @example
 * ```ts
 * import { fromDynamoDBStreamsRecord } from './stream-records.js';
 * const record = fromDynamoDBStreamsRecord(
 *   { eventID: 'e-1', eventName: 'INSERT', dynamodb: { Keys: { pk: { S: 'a' } }, SequenceNumber: '1' } },
 *   'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2024-01-01T00:00:00.000',
 * );
 * console.log(record.eventSourceARN?.endsWith('000'), record.dynamodb?.SequenceNumber); // true 1
 * ```
 */
export function fromDynamoDBStreamsRecord(record: SdkStreamRecord, streamArn: string): DynamoDBRecord {
  const change = record.dynamodb ?? {};
  const dynamodb: NonNullable<DynamoDBRecord['dynamodb']> = {
    ...(change.ApproximateCreationDateTime === undefined
      ? {}
      : { ApproximateCreationDateTime: Math.floor(change.ApproximateCreationDateTime.getTime() / 1000) }),
    ...(change.Keys === undefined ? {} : { Keys: lambdaImage(change.Keys) }),
    ...(change.NewImage === undefined ? {} : { NewImage: lambdaImage(change.NewImage) }),
    ...(change.OldImage === undefined ? {} : { OldImage: lambdaImage(change.OldImage) }),
    ...(change.SequenceNumber === undefined ? {} : { SequenceNumber: change.SequenceNumber }),
    ...(change.SizeBytes === undefined ? {} : { SizeBytes: change.SizeBytes }),
    ...(change.StreamViewType === undefined ? {} : { StreamViewType: change.StreamViewType }),
  };
  return {
    ...(record.eventID === undefined ? {} : { eventID: record.eventID }),
    ...(record.eventName === undefined ? {} : { eventName: record.eventName }),
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    ...(record.awsRegion === undefined ? {} : { awsRegion: record.awsRegion }),
    dynamodb,
    eventSourceARN: streamArn,
    ...(record.userIdentity === undefined ? {} : { userIdentity: { ...record.userIdentity } }),
  };
}
