/**
 * JSON body helpers for `key` functions and handlers: a body that does not
 * parse becomes a typed `BodyParseError`, one that fails its schema a
 * `SchemaValidationError`, so the record fails alone with a clear reason.
 */
import type { SQSRecord } from 'aws-lambda';
import { BodyParseError, SchemaValidationError } from '../engine/errors.js';
import { describeIssues, isStandardSchema, type StandardSchemaResult, type StandardSchemaV1 } from '../engine/standard-schema.js';

/** What the JSON helpers read from a record. */
export type JsonRecord = Pick<SQSRecord, 'body' | 'messageId'>;

function parse(record: JsonRecord): unknown {
  try {
    return JSON.parse(record.body);
  } catch (err) {
    throw new BodyParseError(`Message ${record.messageId}: body is not valid JSON (${(err as Error).message}).`, {
      cause: err,
    });
  }
}

function checked(owner: string, schema: unknown): StandardSchemaV1['~standard'] {
  if (!isStandardSchema(schema)) {
    throw new TypeError(
      `${owner}: the schema must be a Standard Schema v1 schema (with a "~standard" property and its validate function).`,
    );
  }
  return schema['~standard'];
}

function outcome<T>(record: JsonRecord, result: StandardSchemaResult<T>): T {
  if (result.issues === undefined) return result.value;
  const issues = result.issues;
  throw new SchemaValidationError(`Message ${record.messageId}: body does not match the schema (${describeIssues(issues)}).`, issues);
}

/**
 * Parses an SQS record's body as JSON and, given a Standard Schema v1 schema
 * (zod >= 3.24, valibot >= 1, arktype >= 2, or your own), validates it
 * synchronously and returns the schema's typed output. For a schema whose
 * validation is asynchronous, use {@link jsonBodyAsync}.
 *
 * @throws BodyParseError when the body is not valid JSON.
 * @throws SchemaValidationError when the body does not match the schema (the record is invalid, never retried).
 * @throws TypeError when the schema is not a Standard Schema or validates asynchronously.
 * @example
 * ```ts
 * import { jsonBody, type StandardSchemaV1 } from 'effectively-once';
 * import type { SQSRecord } from 'aws-lambda';
 * const key = (record: SQSRecord) => jsonBody<{ orderNo: string }>(record).orderNo;
 *
 * declare const Order: StandardSchemaV1<unknown, { orderNo: string; amount: number }>; // e.g. a zod object
 * const amount = (record: SQSRecord): number => jsonBody(record, Order).amount;
 * ```
 */
export function jsonBody<T = unknown>(record: JsonRecord): T;
export function jsonBody<T>(record: JsonRecord, schema: StandardSchemaV1<unknown, T>): T;
export function jsonBody<T>(record: JsonRecord, schema?: StandardSchemaV1<unknown, T>): T {
  if (schema === undefined) return parse(record) as T;
  const props = checked('jsonBody', schema);
  const result = props.validate(parse(record));
  if (result instanceof Promise) {
    // Nothing awaits it: keep its rejection from surfacing as an unhandled one.
    result.catch(() => undefined);
    throw new TypeError('jsonBody: this schema validates asynchronously; use `await jsonBodyAsync(record, schema)`.');
  }
  return outcome(record, result as StandardSchemaResult<T>);
}

/**
 * {@link jsonBody} for any schema, including one whose validation is
 * asynchronous (async refinements): resolves the schema's typed output.
 *
 * @throws BodyParseError when the body is not valid JSON.
 * @throws SchemaValidationError when the body does not match the schema.
 * @example
 * ```ts
 * import { eachRecord, jsonBodyAsync, type StandardSchemaV1 } from 'effectively-once';
 * import type { SQSEvent } from 'aws-lambda';
 *
 * declare const Order: StandardSchemaV1<unknown, { orderNo: string }>;
 * export const handler = eachRecord(async (record: SQSEvent['Records'][number]) => {
 *   const order = await jsonBodyAsync(record, Order);
 *   console.log(order.orderNo);
 * });
 * ```
 */
export async function jsonBodyAsync<T>(record: JsonRecord, schema: StandardSchemaV1<unknown, T>): Promise<T> {
  const props = checked('jsonBodyAsync', schema);
  const result = await props.validate(parse(record));
  return outcome(record, result as StandardSchemaResult<T>);
}
