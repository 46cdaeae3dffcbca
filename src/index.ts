/**
 * effectively-once: idempotent AWS Lambda consumers for SQS, EventBridge, Kinesis, DynamoDB Streams and Kafka.
 * At-least-once delivery + idempotent consumers = effects applied once.
 *
 * Explicit export list: what is here is the public API, at most 60 names (api/effectively-once.api.md
 * guards it). It holds what a handler writes and the types users name in annotations: the middlewares and
 * their option types, the body readers, the stores, the transaction and state-machine helpers and the
 * errors a handler throws or catches. Internal shapes (outcome variants, log line parts, store method
 * inputs, option sub-types) stay exported from their modules for the library's own use; a user reaches
 * them through the types here, e.g. `Parameters<typeof backoff>[0]`,
 * `Parameters<IdempotencyStore['claim']>[0]` or `Parameters<BatchLogger>[0]`.
 */

// Middlewares and runners
export { sqsIdempotency } from './sources/sqs/middleware.js';
export type { SqsIdempotencyOptions } from './sources/sqs/middleware.js';
export { eachRecord } from './sources/each-record.js';
export type { RecordContext } from './batch/runner-link.js';
export { eventBridgeIdempotency } from './sources/eventbridge/eventbridge.js';
export type { EventBridgeIdempotencyOptions } from './sources/eventbridge/eventbridge.js';
export { eventBridgeHandler } from './sources/eventbridge/handler.js';
export type { EventContext } from './sources/eventbridge/handler.js';
export { kinesisIdempotency } from './sources/streams/kinesis.js';
export type { KinesisIdempotencyOptions } from './sources/streams/kinesis.js';
export { dynamoDBStreamsIdempotency } from './sources/streams/dynamodb-streams.js';
export type { DynamoDBStreamsIdempotencyOptions } from './sources/streams/dynamodb-streams.js';
export { kafkaIdempotency } from './sources/kafka/middleware.js';
export type { KafkaIdempotencyOptions } from './sources/kafka/middleware.js';
export type { KafkaEvent, KafkaRecord, KafkaBatchResponse } from './sources/kafka/kafka.js';
export { idempotent } from './sources/call/idempotent.js';
export type { IdempotentOptions } from './sources/call/idempotent.js';
export type { BatchLogger } from './observe/log.js';
// Plug-ins, imported only by a handler that uses them: `deadLetter: deadLetter({ sqs })`, `metrics: emfMetrics()`
export { deadLetter } from './sources/sqs/dead-letter.js';
export { backoff } from './sources/sqs/backoff.js';
export { emfMetrics, powertoolsMetrics } from './observe/metrics.js';
// Strategies as option values: `strategy: claim({ heartbeat })`, `strategy: transaction({ commit })`
export { claim } from './strategies/claim/claim.js';
export { transaction } from './strategies/transaction/transaction.js';

// Body readers
export { jsonBody, jsonBodyAsync } from './sources/json.js';
export type { StandardSchemaV1 } from './engine/standard-schema.js';
export { kinesisData, dynamoDBImages } from './sources/streams/data.js';
export { kafkaValue, kafkaHeaders } from './sources/kafka/kafka.js';

// Stores
export { DynamoDBIdempotencyStore } from './stores/dynamodb/store.js';
export { DynamoDBClaimStore } from './stores/dynamodb/claim-store.js';
export type { DynamoDBClaimStoreOptions, DynamoDBIdempotencyStoreOptions } from './stores/dynamodb/options.js';
export type { IdempotencyStore, TransactionalIdempotencyStore } from './engine/store.js';
// Redis / Valkey (no client is imported: bring node-redis or iovalkey through the one-method `redis` option)
export { RedisIdempotencyStore } from './stores/redis/store.js';
export type { RedisIdempotencyStoreOptions } from './stores/redis/options.js';
export { withRedisFilter } from './stores/redis/filter.js';
export type { RedisFilter } from './stores/redis/filter.js';

// Transactions, state machines, the outbox
export { TransactionBuilder } from './strategies/transaction/builder.js';
export {
  transition,
  versionedUpdate,
  transitionAction,
  versionedUpdateAction,
  transitionFailure,
  versionedUpdateFailure,
} from './strategies/transaction/state.js';
export { outboxRelay } from './strategies/transaction/outbox/relay.js';
export type { OutboxRelayOptions } from './strategies/transaction/outbox/relay.js';

// Errors a handler throws or catches (every error's `name` tells the others apart)
export {
  EffectivelyOnceError,
  InvalidRecordError,
  PayloadMismatchError,
  IdempotencyInProgressError,
  LeaseLostError,
  BusinessConflictError,
  TransactionRetryableError,
  PermanentError,
} from './engine/errors.js';
