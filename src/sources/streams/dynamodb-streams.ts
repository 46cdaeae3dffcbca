import type { MiddlewareObj } from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { BusinessKey } from '../../engine/keys.js';
import { dynamoDBStreamsSource } from './adapter.js';
import { streamDefaults, streamIdempotency, type StreamOptions } from './middleware.js';

/** Options of {@link dynamoDBStreamsIdempotency}. */
export interface DynamoDBStreamsIdempotencyOptions extends StreamOptions<DynamoDBRecord> {
  /**
   * The business key of a record (recommended, e.g. the item's key and
   * version from `dynamoDBImages`). Default: the record's `eventID`, the same
   * on every redelivery by a retry or a bisection.
   */
  readonly key?: (record: DynamoDBRecord) => BusinessKey | undefined | null;
  /**
   * What must not change under the same key (flagged when it does). Default:
   * `dynamodb.NewImage` (`OldImage` for a REMOVE). `false`: no check.
   */
  readonly payload?: ((record: DynamoDBRecord) => unknown) | false;
}

/** Defaults of {@link dynamoDBStreamsIdempotency}, in one place. */
export const dynamoDBStreamsDefaults = streamDefaults<DynamoDBRecord>({
  key: (record) => record.eventID,
  payload: (record) => record.dynamodb?.NewImage ?? record.dynamodb?.OldImage ?? null,
});

/**
 * Makes a DynamoDB Streams batch handler idempotent per record, with
 * DynamoDB conditional writes. Pair it with {@link eachRecord}: records run
 * in sequence order; the first failure stops the batch, and the response
 * names it (and the records after it) by sequence number. Enable
 * `ReportBatchItemFailures` on the event source mapping.
 *
 * @throws TypeError when an option is unknown or of the wrong type (at build time).
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
 * import { DynamoDBClaimStore, dynamoDBImages, dynamoDBStreamsIdempotency, eachRecord } from 'effectively-once';
 *
 * type Order = { orderNo: string; status: string; version: number };
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
 *   .use(dynamoDBStreamsIdempotency({
 *     store,
 *     consumer: 'order-mailer',
 *     // One effect per version; a REMOVE has only an OldImage.
 *     key: (r) => {
 *       const { newImage, oldImage } = dynamoDBImages<Order>(r);
 *       const order = newImage ?? oldImage;
 *       return order === undefined ? undefined : `${order.orderNo}#${order.version}#${r.eventName}`;
 *     },
 *   }))
 *   .handler(eachRecord(async (record: DynamoDBStreamEvent['Records'][number]) => {
 *     console.log('order changed', dynamoDBImages<Order>(record).newImage?.status);
 *   }));
 * ```
 */
export function dynamoDBStreamsIdempotency(
  options: DynamoDBStreamsIdempotencyOptions,
): MiddlewareObj<DynamoDBStreamEvent, DynamoDBBatchResponse> {
  return streamIdempotency('dynamoDBStreamsIdempotency', dynamoDBStreamsSource, options, dynamoDBStreamsDefaults);
}
