/**
 * SQS as a batch source: everything the lifecycle needs to know about SQS
 * events and records, and nothing else (see `BatchSource`).
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { BodyParseError } from '../../engine/errors.js';
import { isPlainObject } from '../../engine/options.js';
import type { BatchSource, Refusal } from '../../engine/source.js';
import { attemptOf, fifoGroup } from './record.js';

const refuse = (why: string): Refusal => ({ refused: `not an SQS event: ${why}` });

/** A record without a body string cannot be read: it fails alone. */
function bodyError(record: SQSRecord): BodyParseError | undefined {
  if (typeof record.body === 'string') return undefined;
  const got = record.body === null ? 'null' : typeof record.body;
  return new BodyParseError(`Message ${record.messageId} has no body string (got ${got}).`);
}

/**
 * SQS as a batch source. Only what no per-record outcome can answer refuses
 * the whole event: a record that cannot be reported in `batchItemFailures`
 * (no message id), or one from another event source (the function is wired
 * to the wrong trigger). A record without a body fails alone.
 */
export const sqsSource: BatchSource<SQSEvent, SQSRecord, SQSBatchResponse> = {
  name: 'sqs',
  records(event) {
    const records: unknown = isPlainObject(event) ? event['Records'] : undefined;
    if (!Array.isArray(records)) return refuse('it has no Records array');
    for (const [i, r] of records.entries()) {
      const record = r as Partial<SQSRecord> | null;
      if (typeof record?.messageId !== 'string') return refuse(`record ${i} has no string messageId`);
      if (record.eventSource !== undefined && record.eventSource !== 'aws:sqs') {
        return refuse(`record ${i} comes from ${JSON.stringify(record.eventSource)}, not "aws:sqs"`);
      }
    }
    return records as SQSRecord[];
  },
  withRecords: (event, records) => ({ ...event, Records: [...records] }),
  read: (record) => ({ id: record.messageId, lane: fifoGroup(record), attempt: attemptOf(record), unreadable: bodyError(record) }),
  respond: (retry) => ({ batchItemFailures: retry.map((itemIdentifier) => ({ itemIdentifier })) }),
  retriedIn(response) {
    const failures = (response as Partial<SQSBatchResponse> | undefined)?.batchItemFailures ?? [];
    return new Set(failures.map((f) => f.itemIdentifier));
  },
};
