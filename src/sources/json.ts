/**
 * JSON body helper for `key` functions: a body that does not parse becomes a
 * typed `BodyParseError`, so the record fails alone with a clear reason.
 */
import type { SQSRecord } from 'aws-lambda';
import { BodyParseError } from '../core/errors.js';

/**
 * Parses an SQS record's body as JSON.
 *
 * @throws BodyParseError when the body is not valid JSON.
 * @example
 * ```ts
 * import { jsonBody } from 'effectively-once';
 * import type { SQSRecord } from 'aws-lambda';
 * const key = (record: SQSRecord) => jsonBody<{ orderNo: string }>(record).orderNo;
 * ```
 */
export function jsonBody<T = unknown>(record: Pick<SQSRecord, 'body' | 'messageId'>): T {
  try {
    return JSON.parse(record.body) as T;
  } catch (err) {
    throw new BodyParseError(`Message ${record.messageId}: body is not valid JSON (${(err as Error).message}).`, {
      cause: err,
    });
  }
}
