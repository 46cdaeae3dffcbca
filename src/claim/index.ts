/**
 * effectively-once/claim: the claim-only entry point. `sqsIdempotency` with
 * the claim strategy, `eachRecord`, the body readers and `DynamoDBClaimStore`
 * (the DynamoDB store's claim methods), in a bundle that carries no
 * transaction builder, state machine, group commit, metrics, heartbeat, DLQ,
 * backoff, stream source or stale-claims query. Same option names and
 * behaviour as the main entry for everything it takes; an option it cannot
 * serve is a `TypeError` that says to import from `effectively-once`.
 *
 * Explicit export list: what is here is the public API, each name the main
 * entry's own (the same function, class or type) except `DynamoDBClaimStore`,
 * the base class of the main entry's `DynamoDBIdempotencyStore`: a store from
 * either entry works with either middleware.
 */

// Middleware and runner
export { sqsIdempotency } from './sqs.js';
export type { SqsIdempotencyOptions } from './sqs.js';
export { eachRecord } from './each-record.js';
export type { RecordContext } from '../batch/runner-link.js';
export type { BatchLogger } from '../observe/log.js';
export { jsonBody, jsonBodyAsync } from '../sources/json.js';
export type { StandardSchemaV1 } from '../engine/standard-schema.js';

// Store: the claim methods; a store from either entry works with either middleware
export { DynamoDBClaimStore } from '../stores/dynamodb/claim-store.js';
export type { DynamoDBIdempotencyStoreOptions } from '../stores/dynamodb/options.js';
export type { IdempotencyStore } from '../engine/store.js';

// Errors a handler throws or catches (the main entry's own classes, so `instanceof` holds across entries)
export { EffectivelyOnceError, InvalidRecordError, PayloadMismatchError, LeaseLostError } from '../engine/errors.js';
