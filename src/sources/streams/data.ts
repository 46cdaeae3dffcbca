/**
 * Reading stream payloads in handlers and `key` functions: Kinesis `data`
 * (base64, JSON when it parses) and DynamoDB Streams images (unmarshalled).
 * A record that cannot be read is a `BodyParseError`, so it fails alone.
 */
import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall, type unmarshallOptions } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { BodyParseError } from '../../engine/errors.js';

/** What {@link kinesisData} reads from a record. */
export type KinesisDataRecord = { readonly kinesis: Pick<KinesisStreamRecord['kinesis'], 'data' | 'sequenceNumber'> };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const utf8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

/** Why the record's data cannot be read, or `undefined`: checked without decoding it. */
export function kinesisDataError(record: KinesisDataRecord): BodyParseError | undefined {
  const { data, sequenceNumber } = record.kinesis;
  if (typeof data === 'string' && BASE64.test(data)) return undefined;
  const got = typeof data === 'string' ? 'a string that is not base64' : data === null ? 'null' : typeof data;
  return new BodyParseError(`Kinesis record ${sequenceNumber}: data is not base64 (got ${got}).`);
}

/**
 * A Kinesis record's `data`, decoded from base64: the JSON value when the
 * bytes are JSON text, else the text when they are UTF-8, else the bytes.
 *
 * @throws BodyParseError when `data` is not base64 (the record fails alone).
 * @example
 * ```ts
 * import type { KinesisStreamRecord } from 'aws-lambda';
 * import { kinesisData } from 'effectively-once';
 *
 * const key = (record: KinesisStreamRecord) => kinesisData<{ orderNo: string }>(record).orderNo;
 * ```
 */
export function kinesisData<T = unknown>(record: KinesisDataRecord): T {
  const error = kinesisDataError(record);
  if (error !== undefined) throw error;
  return decodePayload(Buffer.from(record.kinesis.data, 'base64')) as T;
}

/**
 * A payload's bytes as the JSON value they hold, else as their UTF-8 text, else as they are (Kinesis data, a Kafka
 * value). With `refuse`, anything but JSON text is refused with the error it makes of the reason.
 */
export function decodePayload(bytes: Buffer, refuse?: (reason: string, cause: unknown) => Error): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (err) {
    if (refuse !== undefined) throw refuse('the value is not UTF-8 text, not JSON', err);
    return bytes;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    if (refuse !== undefined) throw refuse(`the value is not JSON (${(err as Error).message})`, err);
    return text;
  }
}

/** What {@link dynamoDBImages} reads from a record. */
export type DynamoDBImagesRecord = Pick<DynamoDBRecord, 'dynamodb' | 'eventID'>;

/** The images of a DynamoDB Streams record, unmarshalled (absent when the stream view or the change has none). */
export interface DynamoDBImages<T> {
  readonly newImage: T | undefined;
  readonly oldImage: T | undefined;
}

function image<T>(record: DynamoDBImagesRecord, which: 'NewImage' | 'OldImage', options: unmarshallOptions | undefined): T | undefined {
  const raw: Record<string, AttributeValue> | undefined = record.dynamodb?.[which];
  if (raw === undefined) return undefined;
  try {
    // Lambda's JSON attribute values are the SDK's, with binary as base64 text (kept as such).
    return unmarshall(raw as Record<string, SdkAttributeValue>, options) as T;
  } catch (err) {
    const where = `DynamoDB stream record ${record.eventID ?? '(no eventID)'}`;
    throw new BodyParseError(`${where}: ${which} cannot be unmarshalled (${(err as Error).message}).`, { cause: err });
  }
}

/**
 * A DynamoDB Streams record's `NewImage` and `OldImage` as plain objects.
 * `options` go to `unmarshall` (e.g. `{ wrapNumbers: true }` for numbers
 * beyond `Number.MAX_SAFE_INTEGER`, which otherwise throw).
 *
 * @throws BodyParseError when an image cannot be unmarshalled (the record fails alone).
 * @example
 * ```ts
 * import type { DynamoDBRecord } from 'aws-lambda';
 * import { dynamoDBImages } from 'effectively-once';
 *
 * const key = (record: DynamoDBRecord) => {
 *   const { newImage, oldImage } = dynamoDBImages<{ orderNo: string; version: number }>(record);
 *   const item = newImage ?? oldImage;
 *   return item === undefined ? undefined : `${item.orderNo}#${item.version}`;
 * };
 * ```
 */
export function dynamoDBImages<T = Record<string, unknown>>(record: DynamoDBImagesRecord, options?: unmarshallOptions): DynamoDBImages<T> {
  return { newImage: image<T>(record, 'NewImage', options), oldImage: image<T>(record, 'OldImage', options) };
}
