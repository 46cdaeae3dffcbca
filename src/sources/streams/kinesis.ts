import type { MiddlewareObj } from '@middy/core';
import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import type { BusinessKey } from '../../engine/keys.js';
import { kinesisSource } from './adapter.js';
import { streamDefaults, streamIdempotency, type StreamOptions } from './middleware.js';

/** Options of {@link kinesisIdempotency}. */
export interface KinesisIdempotencyOptions extends StreamOptions<KinesisStreamRecord> {
  /**
   * The business key of a record (recommended: a producer that puts the same
   * event twice makes two records). Default: the record's `eventID`
   * (`shardId:sequenceNumber`), the same on every redelivery by a retry or a
   * bisection. See `kinesisData`.
   */
  readonly key?: (record: KinesisStreamRecord) => BusinessKey | undefined | null;
  /** What must not change under the same key (flagged when it does). Default: `kinesis.data`. `false`: no check. */
  readonly payload?: ((record: KinesisStreamRecord) => unknown) | false;
}

/** Defaults of {@link kinesisIdempotency}, in one place. */
export const kinesisDefaults = streamDefaults<KinesisStreamRecord>({
  key: (record) => record.eventID,
  payload: (record) => record.kinesis.data,
});

/**
 * Makes a Kinesis batch handler idempotent per record, with DynamoDB
 * conditional writes. Pair it with {@link eachRecord}: each shard's records
 * run in sequence order; the first failure in a shard stops that shard, and
 * the response names it (and the records after it) by sequence number.
 * Enable `ReportBatchItemFailures` on the event source mapping.
 *
 * @throws TypeError when an option is unknown or of the wrong type (at build time).
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
 * import { DynamoDBClaimStore, eachRecord, kinesisData, kinesisIdempotency } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<KinesisStreamEvent, KinesisStreamBatchResponse>()
 *   .use(kinesisIdempotency({ store, consumer: 'clicks', key: (r) => kinesisData<{ clickId: string }>(r).clickId }))
 *   .handler(eachRecord(async (record: KinesisStreamEvent['Records'][number]) => {
 *     console.log('counting', kinesisData(record));
 *   }));
 * ```
 */
export function kinesisIdempotency(options: KinesisIdempotencyOptions): MiddlewareObj<KinesisStreamEvent, KinesisStreamBatchResponse> {
  return streamIdempotency('kinesisIdempotency', kinesisSource, options, kinesisDefaults);
}
