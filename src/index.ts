/**
 * effectively-once: idempotent AWS Lambda consumers for SQS, EventBridge, Kinesis and DynamoDB Streams.
 * At-least-once delivery + idempotent consumers = effects applied once.
 *
 * Explicit export list: what is here is the public API.
 */

// Middlewares and runners
export { sqsIdempotency } from './sources/sqs.js';
export type { SqsIdempotencyOptions } from './sources/sqs.js';
export type { PermanentFailureOptions, BackoffOptions } from './sources/sqs-after-settle.js';
export type { IsPermanent } from './core/permanent.js';
export { eachRecord } from './lifecycle/each-record.js';
export type { EachRecordOptions } from './lifecycle/each-record.js';
export type { RecordContext, RecordHandler, NotStartedReason } from './lifecycle/runner-link.js';
export { eventBridgeIdempotency } from './sources/eventbridge.js';
export type { EventBridgeIdempotencyOptions, AnyEventBridgeEvent } from './sources/eventbridge.js';
export { handleEvent } from './lifecycle/event-run.js';
export type { EventContext } from './lifecycle/event-run.js';
export type { WaitPolicy } from './lifecycle/in-progress-wait.js';
export { jsonBody, jsonBodyAsync } from './sources/json.js';
export type { JsonRecord } from './sources/json.js';
export type {
  StandardSchemaV1,
  StandardSchemaProps,
  StandardSchemaResult,
  StandardSchemaIssue,
  StandardSchemaPathSegment,
  StandardSchemaOutput,
} from './core/standard-schema.js';
export type { Strategy, CommonIdempotencyOptions } from './lifecycle/options.js';
export type { ConflictPolicy } from './lifecycle/transaction-commit.js';
export { jsonLineLogger } from './lifecycle/log.js';
export type { BatchLogLine, BatchLogger, RecordLogEntry } from './lifecycle/log.js';

// Store
export { DynamoDBIdempotencyStore } from './store/dynamodb.js';
export type { DynamoDBIdempotencyStoreOptions, ReleaseMode } from './store/options.js';
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
} from './store/types.js';

// Redis / Valkey (no client is imported: bring node-redis or iovalkey through a RedisConnection)
export { RedisIdempotencyStore, MAX_REDIS_RESULT_BYTES } from './store/redis/store.js';
export { withRedisFilter } from './store/redis/filter.js';
export type { RedisFilter, TransactionalRedisFilter, RedisFilterCounts } from './store/redis/filter.js';
export type { RedisConnection } from './store/redis/connection.js';
export type { RedisIdempotencyStoreOptions, RedisFilterOptions } from './store/redis/options.js';

// Transactions and state machines
export { TransactionBuilder, createTransactionBuilder } from './transaction.js';
export type {
  TransactionBuilderOptions,
  TransactPutInput,
  TransactUpdateInput,
  TransactDeleteInput,
  TransactConditionCheckInput,
} from './transaction.js';
export {
  transition,
  versionedUpdate,
  transitionAction,
  versionedUpdateAction,
  transitionFailure,
  versionedUpdateFailure,
} from './state.js';
export type { TransitionInput, VersionedUpdateInput, StateItem, CancellationReasonInput } from './state.js';
export type {
  StateOutcome,
  AppliedOutcome,
  AlreadyOutcome,
  ConflictOutcome as StateConflictOutcome,
  MissingOutcome,
  RefusedOutcome,
} from './core/transition.js';

// Core: outcomes, records, errors, time, keys
export { acknowledged } from './core/outcomes.js';
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
} from './core/outcomes.js';
export type { IdempotencyRecord, IdempotencyStatus } from './core/record.js';
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
} from './core/errors.js';
export type { ErrorContext, CancellationReasonInfo } from './core/errors.js';
export { systemClock } from './core/clock.js';
export type { Clock } from './core/clock.js';
export type { LeasePolicy } from './core/lease.js';
export type { BusinessKey } from './core/keys.js';
export { payloadHash } from './core/hashing.js';
// Metrics: one CloudWatch EMF document per batch/event (docs/metrics.md)
export { emfStdoutWriter } from './lifecycle/metrics.js';
export type { MetricsOption, MetricsOptions, PowertoolsMetricsLike } from './lifecycle/metrics.js';
export { outcomeMetricNames } from './core/metrics.js';
export type { EmfDocument, EmfMetadata, MetricUnit } from './core/metrics.js';

// Lease heartbeat (`lease: { heartbeat }`): the store's optional `renew`
export type { RenewInput, RenewableIdempotencyStore } from './store/types.js';
export type { LeaseOptions, HeartbeatSetting } from './core/lease.js';

// Plain functions outside Middy
export { idempotent } from './function.js';
export type { IdempotentOptions } from './function.js';

// Stream sources (Kinesis, DynamoDB Streams)
export { kinesisIdempotency } from './sources/kinesis.js';
export type { KinesisIdempotencyOptions } from './sources/kinesis.js';
export { dynamoDBStreamsIdempotency } from './sources/dynamodb-streams.js';
export type { DynamoDBStreamsIdempotencyOptions } from './sources/dynamodb-streams.js';
export { kinesisData, dynamoDBImages } from './sources/stream-data.js';
export type { KinesisDataRecord, DynamoDBImagesRecord, DynamoDBImages } from './sources/stream-data.js';
export { outboxRelay } from './outbox/relay.js';
export type {
  OutboxRelayOptions,
  OutboxRelayHandler,
  EventBridgePutEvents,
  OutboxRelayLogLine,
  OutboxRelayLogger,
} from './outbox/relay.js';
export type { OutboxEvent, OutboxOptions, OutboxStatus } from './core/outbox.js';
export type { ClaimsMode } from './sources/sqs.js';

// Group commit (transaction strategy)
export type { CommitMode } from './lifecycle/group-commit.js';
export type { ProbeMode } from './core/duplicate-probe.js';
export type { GroupCommitAnswer } from './store/types.js';

// The claim-only store (also the base of DynamoDBIdempotencyStore): see `effectively-once/claim`
export { DynamoDBClaimStore } from './store/dynamodb-claim.js';
