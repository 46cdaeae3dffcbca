/**
 * DynamoDB Streams as a batch source (see `BatchSource`): a record's id in
 * the response is its `dynamodb.SequenceNumber`; the whole batch is one lane.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { BodyParseError, type InvalidRecordError } from '../../engine/errors.js';
import type { BatchSource } from '../source.js';
import { dynamoDBImages } from './data.js';
import { streamRecordsOf, streamResponse, streamRetriedIn, validStreamEvent } from './adapter.js';
import { isPlainObject } from '../../engine/options.js';

function sequenceOf(record: unknown): string | undefined {
  const change: unknown = isPlainObject(record) ? record['dynamodb'] : undefined;
  const sequence: unknown = isPlainObject(change) ? change['SequenceNumber'] : undefined;
  return typeof sequence === 'string' && sequence.length > 0 ? sequence : undefined;
}

function unreadable(record: DynamoDBRecord): InvalidRecordError | undefined {
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
 * DynamoDB Streams as a batch source. Its records name no shard, but Lambda
 * reads each shard on its own, so one invocation's batch comes from one shard:
 * the lane is the stream (`eventSourceARN`), which keeps the whole batch in
 * sequence order. DynamoDB Streams records carry no delivery count: `attempt` is 1.
 */
export const dynamoDBStreamsSource: BatchSource<DynamoDBStreamEvent, DynamoDBRecord, DynamoDBBatchResponse> = {
  name: 'dynamodb-streams',
  owner: 'dynamoDBStreamsIdempotency',
  eventKind: 'a DynamoDB Streams event',
  invalidEvent: (event) => validStreamEvent(event, 'aws:dynamodb', sequenceOf, 'dynamodb.SequenceNumber'),
  records: (event) => event.Records,
  withRecords: (event, records) => ({ ...event, Records: [...records] }),
  recordsOf: streamRecordsOf,
  itemId: sequenceOf,
  lane: (record) => record.eventSourceARN ?? 'stream',
  resumesFromFirstFailure: true,
  attempt: () => 1,
  unreadable,
  respond: streamResponse,
  retriedIn: streamRetriedIn,
};
