/**
 * What Kinesis and DynamoDB Streams share as batch sources: the event's
 * `Records`, the check that each record comes from the stream and can be
 * named in the response, and the `batchItemFailures` response (the same
 * shape as SQS's, naming sequence numbers).
 */
import { isPlainObject } from '../../engine/options.js';

/** The partial batch response of both stream sources (`KinesisStreamBatchResponse` and `DynamoDBBatchResponse` have this shape). */
interface StreamsBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/** The event's Records array, if it has one. */
export function streamRecordsOf(event: unknown): unknown[] | undefined {
  const records: unknown = isPlainObject(event) ? event['Records'] : undefined;
  return Array.isArray(records) ? records : undefined;
}

/**
 * Why the event is not a stream event of `eventSource`, or `undefined`. A
 * record without a sequence number cannot be named in the response; one
 * from another source means the function is wired to the wrong trigger.
 */
export function validStreamEvent(
  event: unknown,
  eventSource: string,
  sequenceOf: (record: unknown) => string | undefined,
  field: string,
): string | undefined {
  const records = streamRecordsOf(event);
  if (records === undefined) return 'it has no Records array';
  for (const [i, record] of records.entries()) {
    const source: unknown = isPlainObject(record) ? record['eventSource'] : undefined;
    if (source !== undefined && source !== eventSource) return `record ${i} comes from ${JSON.stringify(source)}, not "${eventSource}"`;
    if (sequenceOf(record) === undefined) return `record ${i} has no string ${field}`;
  }
  return undefined;
}

/** The response naming these sequence numbers; the event source mapping checkpoints before the lowest. */
export function streamResponse(retry: readonly string[]): StreamsBatchResponse {
  return { batchItemFailures: retry.map((itemIdentifier) => ({ itemIdentifier })) };
}

/** The sequence numbers a handler's own response names. */
export function streamRetriedIn(response: unknown): ReadonlySet<string> {
  const failures = (response as Partial<StreamsBatchResponse> | undefined)?.batchItemFailures ?? [];
  return new Set(failures.map((f) => f.itemIdentifier));
}
