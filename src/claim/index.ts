/**
 * effectively-once/claim: the claim-only entry point. `sqsIdempotency` with
 * the claim strategy, `eachRecord`, the body readers and a DynamoDB store
 * with the claim methods only, in a bundle that carries no transaction
 * builder, state machine, group commit, metrics, heartbeat, DLQ, backoff,
 * stream source or stale-claims query. Same option names and behaviour as
 * the main entry for everything it takes; an option it cannot serve is a
 * `TypeError` that says to import from `effectively-once`.
 *
 * Explicit export list: what is here is the public API.
 */

// Middleware and runner
export { sqsIdempotency } from './sqs.js';
export type { SqsIdempotencyOptions } from './sqs.js';
export { eachRecord } from './each-record.js';
export type { EachRecordOptions } from '../batch/each-record.js';
export type { RecordContext, RecordHandler, NotStartedReason } from '../batch/runner-link.js';
export { jsonBody, jsonBodyAsync } from '../sources/json.js';
export type { JsonRecord } from '../sources/json.js';
export type {
  StandardSchemaV1,
  StandardSchemaProps,
  StandardSchemaResult,
  StandardSchemaIssue,
  StandardSchemaPathSegment,
  StandardSchemaOutput,
} from '../engine/standard-schema.js';
export { jsonLineLogger } from '../observe/log.js';
export type { BatchLogLine, BatchLogger, RecordLogEntry } from '../observe/log.js';

// Store: the claim methods; a store from either entry works with either middleware
export { DynamoDBClaimStore, DynamoDBClaimStore as DynamoDBIdempotencyStore } from '../stores/dynamodb/claim-store.js';
export type { DynamoDBIdempotencyStoreOptions, ReleaseMode } from '../stores/dynamodb/options.js';
export type {
  IdempotencyStore,
  ClaimInput,
  ClaimResult,
  CompleteInput,
  ReleaseInput,
  RenewInput,
  FencedWriteResult,
} from '../stores/types.js';

// Outcomes, records, errors, time, keys
export { acknowledged } from '../engine/outcomes.js';
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
} from '../engine/outcomes.js';
export type { IdempotencyRecord, IdempotencyStatus } from '../engine/record.js';
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
  LeaseLostError,
  DeadlineError,
} from '../engine/errors.js';
export type { ErrorContext } from '../engine/errors.js';
export { systemClock } from '../engine/clock.js';
export type { Clock } from '../engine/clock.js';
export type { LeasePolicy } from '../engine/lease.js';
export type { BusinessKey } from '../engine/keys.js';
export { payloadHash } from '../engine/hashing.js';
