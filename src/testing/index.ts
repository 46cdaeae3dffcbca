/**
 * `effectively-once/testing`: what you need to unit-test a handler without an AWS account: builders of realistic
 * Lambda inputs, a simulated invocation that can crash or time out, the fault kit, an in-memory store, the contract
 * every store proves itself with, and DynamoDB Local with the idempotency table and the tables of your own
 * serverless.yml or CloudFormation template (docs/testing.md).
 *
 * At most 35 names (api/testing.api.md guards them): the functions and classes a test calls and the types it names; an
 * option type is reached through its function (`Parameters<typeof sqsRecord>[0]`). The simulators the project's own
 * tests run on live in scripts/sim/, outside the package.
 */
// Lambda inputs
export { sqsRecord, sqsEvent, eventBridgeEvent, lambdaContext, kafkaEvent } from './events.js';
export { kinesisStreamRecord, kinesisStreamEvent, dynamoDBStreamRecord, dynamoDBStreamEvent } from './stream-records.js';
// Time
export { ManualClock } from './clock.js';
// Stores
export { MemoryIdempotencyStore } from '../stores/memory.js';
export { storeContract } from './store-contract.js';
export type { StoreContractSubject } from './store-contract.js';
// One invocation, and the faults
export { invoke, checkpoint } from './invocation.js';
export type { InvocationResult } from './invocation.js';
export { abandon, crashAfter, CrashPoint, flaky, Flaky, delay, Deferred } from './faults.js';
export { injectDynamoDBFaults } from './dynamodb-faults.js';
export type { DynamoDBFaultInjector } from './dynamodb-faults.js';
export { crashingStore } from './crash-store.js';
// DynamoDB Local for your own handler's tests, the idempotency table, and the tables of your own template
export { startDynamoDBLocal, DynamoDBLocalStartError } from './dynamodb-local.js';
export type { DynamoDBLocal } from './dynamodb-local.js';
export { createIdempotencyTable, TableSchemaMismatchError } from '../stores/dynamodb/table-create.js';
export { createTablesFromTemplate } from './templates/create.js';
export type { TemplateTable } from './templates/create.js';
export { TemplateError } from './templates/errors.js';
