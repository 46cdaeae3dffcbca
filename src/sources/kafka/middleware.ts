import type { MiddlewareObj } from '@middy/core';
import type { BusinessKey } from '../../engine/keys.js';
import { kafkaSource, kafkaValue, type KafkaBatchResponse, type KafkaEvent, type KafkaRecord } from './kafka.js';
import { streamDefaults, streamIdempotency, type StreamOptions } from '../streams/middleware.js';

/** Options of {@link kafkaIdempotency}. */
export interface KafkaIdempotencyOptions extends StreamOptions<KafkaRecord> {
  /**
   * The business key of a record (recommended: the event's own id, from the
   * value or a header). Default: `topic-partition-offset`, which recognises
   * a record delivered again but not an event a producer re-sent (a new
   * offset). Not the Kafka key: that is often an entity's id, which all of
   * one customer's events share (docs/kafka.md).
   */
  readonly key?: (record: KafkaRecord) => BusinessKey | undefined | null;
  /** What must not change under the same key (flagged when it does). Default: the decoded value (`kafkaValue`). `false`: no check. */
  readonly payload?: ((record: KafkaRecord) => unknown) | false;
}

/** Defaults of {@link kafkaIdempotency}, in one place. */
export const kafkaDefaults = streamDefaults<KafkaRecord>({
  // Not the Kafka key: a partitioning key (a customer id) would make a customer's second event a duplicate or a mismatch.
  key: (record) => `${record.topic}-${record.partition}-${record.offset}`,
  payload: (record) => kafkaValue(record),
});

/**
 * Makes a Kafka (Amazon MSK or self-managed) batch handler idempotent per
 * record, with DynamoDB conditional writes. Pair it with
 * {@link eachRecord}: each topic-partition's records run in offset
 * order; the first failure in a partition stops that partition, and the
 * response names it and the records after it by partition and offset.
 * Enable `ReportBatchItemFailures` on the event source mapping.
 *
 * @throws TypeError when an option is unknown or of the wrong type (at build time).
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import {
 *   DynamoDBClaimStore,
 *   eachRecord,
 *   kafkaIdempotency,
 *   kafkaValue,
 *   type KafkaBatchResponse,
 *   type KafkaEvent,
 * } from 'effectively-once';
 *
 * type OrderPlaced = { orderNo: string };
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<KafkaEvent, KafkaBatchResponse>()
 *   .use(kafkaIdempotency({ store, consumer: 'order-mailer', key: (r) => kafkaValue<OrderPlaced>(r).orderNo }))
 *   .handler(eachRecord(async (record) => {
 *     console.log('mailing', kafkaValue<OrderPlaced>(record).orderNo);
 *   }));
 * ```
 */
export function kafkaIdempotency(options: KafkaIdempotencyOptions): MiddlewareObj<KafkaEvent, KafkaBatchResponse> {
  return streamIdempotency('kafkaIdempotency', kafkaSource, options, kafkaDefaults);
}
