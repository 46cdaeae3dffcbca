/**
 * SQS as a batch source: everything the lifecycle needs to know about SQS
 * events and records, and nothing else (see `BatchSource`).
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { BodyParseError } from '../../engine/errors.js';
import type { BatchSource } from '../source.js';
import { attemptOf, fifoGroup } from './record.js';
import { isPlainObject } from '../../engine/options.js';

const NAME = 'sqsIdempotency';

/** The event's Records array, if it has one. */
function recordsOf(event: unknown): unknown[] | undefined {
  const records: unknown = isPlainObject(event) ? event['Records'] : undefined;
  return Array.isArray(records) ? records : undefined;
}

/**
 * SQS as a batch source. Only what no per-record outcome can answer fails the
 * whole event: a record that cannot be reported in `batchItemFailures` (no
 * message id), or one from another event source (the function is wired to the
 * wrong trigger). A record without a body fails alone (`unreadable`).
 */
export const sqsSource: BatchSource<SQSEvent, SQSRecord, SQSBatchResponse> = {
  name: 'sqs',
  owner: NAME,
  eventKind: 'an SQS event',
  invalidEvent(event) {
    const records = recordsOf(event);
    if (records === undefined) return 'it has no Records array';
    for (const [i, r] of records.entries()) {
      const record = r as Partial<SQSRecord> | null;
      if (typeof record?.messageId !== 'string') return `record ${i} has no string messageId`;
      if (record.eventSource !== undefined && record.eventSource !== 'aws:sqs') {
        return `record ${i} comes from ${JSON.stringify(record.eventSource)}, not "aws:sqs"`;
      }
    }
    return undefined;
  },
  records: (event) => event.Records,
  withRecords: (event, records) => ({ ...event, Records: [...records] }),
  recordsOf,
  itemId(record) {
    const id: unknown = isPlainObject(record) ? record['messageId'] : undefined;
    return typeof id === 'string' ? id : undefined;
  },
  lane: fifoGroup,
  attempt: attemptOf,
  unreadable(record) {
    if (typeof record.body === 'string') return undefined;
    const got = record.body === null ? 'null' : typeof record.body;
    return new BodyParseError(`Message ${record.messageId} has no body string (got ${got}).`);
  },
  respond: (retry) => ({ batchItemFailures: retry.map((itemIdentifier) => ({ itemIdentifier })) }),
  retriedIn(response) {
    const failures = (response as Partial<SQSBatchResponse> | undefined)?.batchItemFailures ?? [];
    return new Set(failures.map((f) => f.itemIdentifier));
  },
};
