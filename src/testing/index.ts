/**
 * `effectively-once/testing`: simulators of the AWS pieces around an
 * idempotent consumer (SQS queue, event source mapping, async invocation),
 * builders of realistic Lambda inputs, fault injection for chaos tests, an
 * in-memory store and the contract every store proves itself with.
 * Pure TypeScript; needs no AWS account. The stream poller loads the Kinesis or
 * DynamoDB Streams client only when it polls that kind of stream.
 */
export { ManualClock, isAdvanceableClock } from './clock.js';
export type { AdvanceableClock } from './clock.js';
export { lambdaAsyncRetryDelaysMs } from './defaults.js';
export { SimulationError, SimulatedCrash, SimulatedFailure, InvocationTimeoutError, InvalidBatchResponseError } from './errors.js';
export { sqsRecord, sqsEvent, eventBridgeEvent, lambdaContext, md5OfMessageAttributes } from './events.js';
export type { SqsRecordOptions, EventBridgeEventOptions, LambdaContextOptions } from './events.js';
export { SqsQueueSimulator } from './queue.js';
export type { SqsQueueOptions, SendOptions, SendResult, QueueStats, QueuedMessage } from './queue.js';
export { invoke, checkpoint, invocationKilled } from './invocation.js';
export type { LambdaHandler, InvocationResult, InvokeOptions } from './invocation.js';
export { runEventSourceMapping, drain, parseBatchResponse } from './event-source.js';
export type { SqsLambdaHandler, EventSourceMappingOptions, PollReport, DrainOptions, DrainProgress, DrainReport } from './event-source.js';
export { abandon, crashAfter, CrashPoint, flaky, Flaky, delay, Deferred } from './faults.js';
export type { FlakyOptions } from './faults.js';
export { invokeAsync, lambdaErrorPayload } from './eventbridge-invoker.js';
export { AsyncInvoker } from './async-invoker.js';
export type { AsyncInvokerOptions, AsyncInvokerObserver } from './async-invoker.js';
export type {
  InvokeAsyncOptions,
  AsyncInvocationReport,
  AsyncSuccessRecord,
  AsyncFailureRecord,
  AsyncDestination,
  LambdaErrorPayload,
} from './eventbridge-invoker.js';
export { chanceOf, mulberry32, Occurrences } from './chance.js';
export type { Random } from './chance.js';
export { injectDynamoDBFaults, InjectedDynamoDBFault } from './dynamodb-faults.js';
export type {
  DynamoDBFaultKind,
  DynamoDBFaultRule,
  DynamoDBFaultOptions,
  DynamoDBFaultInjector,
  FaultCounts,
  MiddlewareClient,
} from './dynamodb-faults.js';
export { crashingStore } from './crash-store.js';
export type { PipelineCrashPoint, CrashingStoreOptions, PipelineCrash, CrashingStore } from './crash-store.js';
export { MemoryIdempotencyStore } from './memory-store.js';
export type { MemoryIdempotencyStoreOptions } from './memory-store.js';
export { storeContract } from './store-contract.js';
export type {
  StoreContractSetup,
  StoreContractSubject,
  StoreContractFactory,
  StoreContractOptions,
  StoreContractCase,
} from './store-contract.js';
export { streamPoller } from './stream-poller.js';
export type {
  StreamPoller,
  StreamPollerOptions,
  StreamPollerSource,
  StreamPollerStats,
  StreamRecordOf,
  KinesisPollerSource,
  DynamoDBStreamsPollerSource,
} from './stream-poller.js';
export type { StreamFailure, StreamFailureReason, StreamInvocationReport } from './stream-batch.js';
export {
  kinesisStreamRecord,
  kinesisStreamEvent,
  dynamoDBStreamRecord,
  dynamoDBStreamEvent,
  fromKinesisRecord,
  fromDynamoDBStreamsRecord,
} from './stream-records.js';
export type { KinesisStreamRecordOptions, DynamoDBStreamRecordOptions } from './stream-records.js';
