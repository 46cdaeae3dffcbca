/**
 * The batch source an event comes from, for `eachRecord` used without an
 * idempotency middleware: it still needs each record's id in the response
 * and its ordering lane (FIFO group, shard).
 */
import type { BatchSource } from './source.js';
import { dynamoDBStreamsSource, kinesisSource } from './streams/adapter.js';
import { sqsSource } from './sqs/adapter.js';

/** Any batch source, as a plain runner uses it. */
export type AnySource = BatchSource<unknown, unknown, { batchItemFailures: Array<{ itemIdentifier: string }> }>;

const byEventSource: Readonly<Record<string, AnySource>> = {
  'aws:kinesis': kinesisSource as unknown as AnySource,
  'aws:dynamodb': dynamoDBStreamsSource as unknown as AnySource,
};

/** The source of a batch event by its first record's `eventSource`; SQS when it names none other. */
export function sourceOfEvent(event: { readonly Records: readonly unknown[] }): AnySource {
  const first: unknown = event.Records[0];
  const eventSource: unknown = typeof first === 'object' && first !== null ? (first as Record<string, unknown>)['eventSource'] : undefined;
  return (typeof eventSource === 'string' ? byEventSource[eventSource] : undefined) ?? (sqsSource as unknown as AnySource);
}
