/**
 * kafka-orders (Amazon MSK, claim strategy): not deployed by default; the
 * `kafkaOrders` function in serverless.yml is a commented example (see
 * docs/kafka.md).
 *
 * Reads order events from a Kafka topic and applies one side effect per
 * order event, keyed by the event's own id (`eventId` in the JSON value),
 * not by the offset: a producer that re-sends an event gives it a new
 * offset, and a consumer-group rebalance redelivers offsets not yet
 * committed. Each topic-partition runs in offset order and stops at its
 * first failure; the response names that record and the later ones of its
 * partition, and the event source mapping resumes the partition from there.
 */
import middy from '@middy/core';
import {
  eachRecord,
  kafkaIdempotency,
  kafkaValue,
  type BatchLogger,
  type KafkaBatchResponse,
  type KafkaEvent,
  type KafkaRecord,
} from 'effectively-once';
import { sharedDocumentClient } from './shared/aws.js';
import { requireEnv, type Env } from './shared/env.js';
import { lazyHandler } from './shared/lazy.js';
import { keyField } from './shared/messages.js';
import { middyOptions } from './shared/middy.js';
import { leaseFrom, storeFrom, type StoreDeps } from './shared/store.js';

/** The side effect of one order event. */
export type ApplyOrderEvent = (event: Readonly<Record<string, unknown>>, record: KafkaRecord) => Promise<void>;

/** Dependencies of {@link createKafkaOrdersHandler}. */
export interface KafkaOrdersDeps extends StoreDeps {
  readonly apply: ApplyOrderEvent;
  /** The middleware's per-batch log line; default JSON on stdout, `false` for none. */
  readonly logger?: BatchLogger | false;
}

/** Consumer name in idempotency record ids. */
export const KAFKA_ORDERS_CONSUMER = 'kafka-orders';

/**
 * Builds the kafka-orders handler (a middy handler for Kafka batches).
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { createKafkaOrdersHandler } from './kafka-orders.js';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const handler = createKafkaOrdersHandler({ client, tables: { idempotency: 'idem' }, apply: async (e) => console.log(e) });
 * ```
 */
export function createKafkaOrdersHandler(deps: KafkaOrdersDeps) {
  return middy<KafkaEvent, KafkaBatchResponse>(middyOptions)
    .use(
      kafkaIdempotency({
        store: storeFrom(deps),
        consumer: KAFKA_ORDERS_CONSUMER,
        // A value that is not JSON fails alone (BodyParseError), one without an eventId too (MissingKeyError).
        key: (record) => keyField(kafkaValue(record, 'json'), 'eventId'),
        ...leaseFrom(deps),
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      }),
    )
    .handler(eachRecord((record) => deps.apply(kafkaValue<Record<string, unknown>>(record, 'json'), record)));
}

/** Dependencies from the Lambda environment: `IDEMPOTENCY_TABLE`; the side effect is one structured log line. */
export function kafkaOrdersDepsFromEnv(env: Env = process.env): KafkaOrdersDeps {
  return {
    client: sharedDocumentClient(env),
    tables: { idempotency: requireEnv('IDEMPOTENCY_TABLE', env) },
    apply: async (event, record) => {
      process.stdout.write(
        `${JSON.stringify({ outbox: 'order-event', topic: record.topic, partition: record.partition, offset: record.offset, event })}\n`,
      );
    },
  };
}

/** The Lambda entry point (`functions/kafka-orders.handler` in serverless.yml's commented `kafkaOrders` example). */
export const handler = lazyHandler(() => createKafkaOrdersHandler(kafkaOrdersDepsFromEnv()));
