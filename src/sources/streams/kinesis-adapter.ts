/**
 * Kinesis Data Streams as a batch source (see `BatchSource`): a record's id
 * in the response is its sequence number, its lane its shard.
 */
import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { BodyParseError } from '../../engine/errors.js';
import type { BatchSource } from '../source.js';
import { kinesisDataError } from './data.js';
import { streamRecordsOf, streamResponse, streamRetriedIn, validStreamEvent } from './adapter.js';
import { isPlainObject } from '../../engine/options.js';

function sequenceOf(record: unknown): string | undefined {
  const payload: unknown = isPlainObject(record) ? record['kinesis'] : undefined;
  const sequence: unknown = isPlainObject(payload) ? payload['sequenceNumber'] : undefined;
  return typeof sequence === 'string' && sequence.length > 0 ? sequence : undefined;
}

/**
 * Kinesis as a batch source. The shard is the part of `eventID`
 * (`shardId-000000000000:<sequenceNumber>`) before the `:`; a record without
 * one falls back to the stream, so records are never run out of order.
 * Kinesis records carry no delivery count: `attempt` is 1.
 */
export const kinesisSource: BatchSource<KinesisStreamEvent, KinesisStreamRecord, KinesisStreamBatchResponse> = {
  name: 'kinesis',
  owner: 'kinesisIdempotency',
  eventKind: 'a Kinesis stream event',
  invalidEvent: (event) => validStreamEvent(event, 'aws:kinesis', sequenceOf, 'kinesis.sequenceNumber'),
  records: (event) => event.Records,
  withRecords: (event, records) => ({ ...event, Records: [...records] }),
  recordsOf: streamRecordsOf,
  itemId: sequenceOf,
  lane(record) {
    const eventID: unknown = record.eventID;
    const colon = typeof eventID === 'string' ? eventID.indexOf(':') : -1;
    return colon > 0 ? (eventID as string).slice(0, colon) : String(record.eventSourceARN ?? 'stream');
  },
  resumesFromFirstFailure: true,
  attempt: () => 1,
  unreadable(record) {
    if (!isPlainObject(record.kinesis)) return new BodyParseError('Kinesis record has no kinesis payload.');
    // Checked, not decoded: the key function and the handler decode it when they read it.
    return kinesisDataError(record);
  },
  respond: streamResponse,
  retriedIn: streamRetriedIn,
};
