/**
 * effectively-once: idempotent AWS Lambda consumers for SQS, EventBridge, Kinesis and DynamoDB Streams.
 * At-least-once delivery + idempotent consumers = effects applied once.
 *
 * Explicit export list: what is here is the public API.
 */

// Middlewares and runners
export { sqsIdempotency } from './sources/sqs/middleware.js';
export type { SqsIdempotencyOptions } from './sources/sqs/middleware.js';
export type { PermanentFailureOptions, BackoffOptions } from './sources/sqs/after-settle.js';
export type { IsPermanent } from './sources/sqs/permanent.js';
export { eachRecord } from './batch/each-record.js';
export type { EachRecordOptions } from './batch/each-record.js';
export type { RecordContext, RecordHandler, NotStartedReason } from './batch/runner-link.js';
export { eventBridgeIdempotency } from './sources/eventbridge.js';
export type { EventBridgeIdempotencyOptions, AnyEventBridgeEvent } from './sources/eventbridge.js';
export { handleEvent } from './event/handle-event.js';
export type { EventContext } from './event/handle-event.js';
export type { WaitPolicy } from './engine/wait.js';
export { jsonBody, jsonBodyAsync } from './sources/json.js';
export type { JsonRecord } from './sources/json.js';
export type {
  StandardSchemaV1,
  StandardSchemaProps,
  StandardSchemaResult,
  StandardSchemaIssue,
  StandardSchemaPathSegment,
  StandardSchemaOutput,
} from './engine/standard-schema.js';
export type { Strategy, CommonIdempotencyOptions } from './engine/middleware-options.js';
export type { ConflictPolicy } from './transaction/commit-step.js';
export { jsonLineLogger } from './observe/log.js';
export type { BatchLogLine, BatchLogger, RecordLogEntry } from './observe/log.js';

// Store
export { DynamoDBIdempotencyStore } from './stores/dynamodb/store.js';
export type { DynamoDBIdempotencyStoreOptions, ReleaseMode } from './stores/dynamodb/options.js';
export type {
  IdempotencyStore,
  TransactionalIdempotencyStore,
  ClaimInput,
  ClaimResult,
  CompleteInput,
  ReleaseInput,
  FencedWriteResult,
  CommitInput,
  CommitResult,
  StaleClaim,
  TransactItem,
} from './stores/types.js';

// Redis / Valkey (no client is imported: bring node-redis or iovalkey through a RedisConnection)
export { RedisIdempotencyStore, MAX_REDIS_RESULT_BYTES } from './stores/redis/store.js';
export { withRedisFilter } from './stores/redis/filter.js';
export type { RedisFilter, TransactionalRedisFilter, RedisFilterCounts } from './stores/redis/filter.js';
export type { RedisConnection } from './stores/redis/connection.js';
export type { RedisIdempotencyStoreOptions, RedisFilterOptions } from './stores/redis/options.js';

// Transactions and state machines
export { TransactionBuilder, createTransactionBuilder } from './transaction/builder.js';
export type {
  TransactionBuilderOptions,
  TransactPutInput,
  TransactUpdateInput,
  TransactDeleteInput,
  TransactConditionCheckInput,
} from './transaction/builder.js';
export {
  transition,
  versionedUpdate,
  transitionAction,
  versionedUpdateAction,
  transitionFailure,
  versionedUpdateFailure,
} from './transaction/state.js';
export type { TransitionInput, VersionedUpdateInput, StateItem, CancellationReasonInput } from './transaction/state.js';
export type {
  StateOutcome,
  AppliedOutcome,
  AlreadyOutcome,
  ConflictOutcome as StateConflictOutcome,
  MissingOutcome,
  RefusedOutcome,
} from './transaction/transition.js';

// Core: outcomes, records, errors, time, keys
export { acknowledged } from './engine/outcomes.js';
export type {
  RecordOutcome,
  RecordOutcomeKind,
  CompletedOutcome,
  DuplicateOutcome,
  InProgressOutcome,
  FailedOutcome,
  InvalidOutcome,
  LeaseLostOutcome,
  NotStartedOutcome,
  ConflictOutcome,
  DeadLetteredOutcome,
} from './engine/outcomes.js';
export type { IdempotencyRecord, IdempotencyStatus } from './engine/record.js';
export {
  EffectivelyOnceError,
  InvalidRecordError,
  MissingKeyError,
  KeyTooLongError,
  BodyParseError,
  SchemaValidationError,
  PayloadMismatchError,
  ItemTooLargeError,
  UnstorableResultError,
  IdempotencyInProgressError,
  LeaseLostError,
  DeadlineError,
  TransactionLimitError,
  BusinessConflictError,
  TransactionRetryableError,
  PermanentError,
} from './engine/errors.js';
export type { ErrorContext, CancellationReasonInfo } from './engine/errors.js';
export { systemClock } from './engine/clock.js';
export type { Clock } from './engine/clock.js';
export type { LeasePolicy } from './engine/lease.js';
export type { BusinessKey } from './engine/keys.js';
export { payloadHash } from './engine/hashing.js';
// Metrics: one CloudWatch EMF document per batch/event (docs/metrics.md)
export { emfStdoutWriter } from './observe/metrics.js';
export type { MetricsOption, MetricsOptions, PowertoolsMetricsLike } from './observe/metrics.js';
export { outcomeMetricNames } from './observe/emf.js';
export type { EmfDocument, EmfMetadata, MetricUnit } from './observe/emf.js';

// Lease heartbeat (`lease: { heartbeat }`): the store's optional `renew`
export type { RenewInput, RenewableIdempotencyStore } from './stores/types.js';
export type { LeaseOptions, HeartbeatSetting } from './engine/lease.js';

// Plain functions outside Middy
export { idempotent } from './event/idempotent.js';
export type { IdempotentOptions } from './event/idempotent.js';

// Stream sources (Kinesis, DynamoDB Streams, Kafka)
export { kinesisIdempotency } from './sources/streams/kinesis.js';
export type { KinesisIdempotencyOptions } from './sources/streams/kinesis.js';
export { dynamoDBStreamsIdempotency } from './sources/streams/dynamodb-streams.js';
export type { DynamoDBStreamsIdempotencyOptions } from './sources/streams/dynamodb-streams.js';
export { kinesisData, dynamoDBImages } from './sources/streams/data.js';
export type { KinesisDataRecord, DynamoDBImagesRecord, DynamoDBImages } from './sources/streams/data.js';
// Kafka: Amazon MSK and self-managed Apache Kafka (docs/kafka.md)
export { kafkaIdempotency, eachKafkaRecord } from './sources/kafka-middleware.js';
export type { KafkaIdempotencyOptions } from './sources/kafka-middleware.js';
export { kafkaValue, kafkaHeaders } from './sources/kafka.js';
export type { KafkaEvent, KafkaRecord, KafkaBatchResponse } from './sources/kafka.js';
export { outboxRelay } from './transaction/outbox/relay.js';
export type {
  OutboxRelayOptions,
  OutboxRelayHandler,
  EventBridgePutEvents,
  OutboxRelayLogLine,
  OutboxRelayLogger,
} from './transaction/outbox/relay.js';
export type { OutboxEvent, OutboxOptions, OutboxStatus } from './transaction/outbox/item.js';
export type { ClaimsMode } from './sources/sqs/middleware.js';

// Group commit (transaction strategy)
export type { CommitMode } from './transaction/group-commit/queue.js';
export type { ProbeMode } from './transaction/group-commit/duplicate-probe.js';
export type { GroupCommitAnswer } from './stores/types.js';

// The claim-only store (also the base of DynamoDBIdempotencyStore): see `effectively-once/claim`
export { DynamoDBClaimStore } from './stores/dynamodb/claim-store.js';
