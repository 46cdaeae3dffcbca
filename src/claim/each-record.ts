/**
 * `eachRecord` of the claim-only entry: the main entry's, except that without
 * a middleware in front it knows SQS records only (the stream sources stay in
 * the main entry); Kinesis or DynamoDB Streams records are a `TypeError`
 * rather than a run with the wrong record ids.
 */
import type { Context, SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { eachRecordOver, type EachRecordOptions } from '../batch/each-record.js';
import type { RecordHandler } from '../batch/runner-link.js';
import type { PlainReader, PlainSource } from '../engine/source.js';
import { SQS_MIDDLEWARE } from '../sources/sqs/defaults.js';
import { sqsSource } from '../sources/sqs/adapter.js';

const plainSqs: PlainSource = { source: sqsSource as unknown as PlainReader, middleware: SQS_MIDDLEWARE };

function sqsOnly(event: unknown): PlainSource {
  const records: unknown = typeof event === 'object' && event !== null ? (event as Record<string, unknown>)['Records'] : undefined;
  const first: unknown = Array.isArray(records) ? records[0] : undefined;
  const from: unknown = typeof first === 'object' && first !== null ? (first as Record<string, unknown>)['eventSource'] : undefined;
  if (from === 'aws:kinesis' || from === 'aws:dynamodb') {
    throw new TypeError(
      `eachRecord: records from ${from} need eachRecord from 'effectively-once' ('effectively-once/claim' knows SQS only).`,
    );
  }
  return plainSqs;
}

/**
 * Wraps a per-record function into an SQS batch handler that returns a
 * partial batch response; behind `sqsIdempotency` it runs only the
 * records this invocation claimed. The same as `eachRecord` from
 * `effectively-once`, except that without a middleware in front it takes
 * SQS events only.
 *
 * @throws TypeError (the handler rejects) as the main entry's does, and for
 * Kinesis or DynamoDB Streams records without a middleware in front.
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
 * import { eachRecord } from 'effectively-once/claim';
 *
 * export const handler = middy<SQSEvent, SQSBatchResponse>().handler(
 *   eachRecord(async (record) => {
 *     console.log(record.body);
 *   }),
 * );
 * ```
 */
export function eachRecord<TResult, TRecord = SQSRecord>(
  fn: RecordHandler<TResult, TRecord>,
  options: EachRecordOptions = {},
): (event: { Records: TRecord[] }, context: Context) => Promise<SQSBatchResponse> {
  return eachRecordOver(fn as RecordHandler<unknown, unknown>, options, sqsOnly) as (
    event: { Records: TRecord[] },
    context: Context,
  ) => Promise<SQSBatchResponse>;
}
