/**
 * The batch source an event comes from, for `eachRecord` used without an
 * idempotency middleware: it still needs each record's id in the response,
 * its ordering lane (FIFO group, shard, partition) and the response's shape.
 */
import { isPlainObject } from '../engine/options.js';
import { kafkaRecords } from './kafka/kafka.js';
import type { PlainReader, PlainSource } from '../engine/source.js';
import { SQS_MIDDLEWARE } from './sqs/defaults.js';
import { sqsSource } from './sqs/adapter.js';
import { dynamoDBStreamsRecords, kinesisRecords } from './streams/adapter.js';

// Object literals of each adapter's plain reader, no calls: an entry that never calls `sourceOfEvent` bundles
// none of them, and one that does carries no stream or Kafka record checks (test/unit/claim-bundle.test.ts).
const sqs: PlainSource = { source: sqsSource as unknown as PlainReader, middleware: SQS_MIDDLEWARE };
const kafka: PlainSource = { source: kafkaRecords as unknown as PlainReader, middleware: 'kafkaIdempotency' };
const byEventSource: Readonly<Record<string, PlainSource>> = {
  'aws:kinesis': { source: kinesisRecords as unknown as PlainReader, middleware: 'kinesisIdempotency' },
  'aws:dynamodb': { source: dynamoDBStreamsRecords as unknown as PlainReader, middleware: 'dynamoDBStreamsIdempotency' },
};

/**
 * The source of a batch event: Kafka by its `records` object, a stream by its
 * first record's `eventSource`, SQS when it names none other.
 *
 * @throws TypeError when the event has neither a `Records` array nor a `records` object.
 */
export function sourceOfEvent(event: unknown): PlainSource {
  if (isPlainObject(event) && isPlainObject(event['records'])) return kafka;
  const records: unknown = isPlainObject(event) ? event['Records'] : undefined;
  if (!Array.isArray(records)) {
    throw new TypeError(
      'eachRecord: the event is not an SQS event, nor a Kinesis, DynamoDB Streams or Kafka one (it has no Records array, nor a records object).',
    );
  }
  const first: unknown = records[0];
  const eventSource: unknown = isPlainObject(first) ? first['eventSource'] : undefined;
  return (typeof eventSource === 'string' ? byEventSource[eventSource] : undefined) ?? sqs;
}
