/**
 * The simulators of the AWS pieces around a consumer that this project's own
 * tests and scripts run on (`npm start`, `npm run chaos`): an SQS queue and
 * its event source mapping, Lambda's async invocation, and a stream poller
 * over a real local stream. Not part of the package: what users need to test
 * their handlers is `effectively-once/testing` (src/testing/), on which these
 * are built (`invoke`, the event builders, the fault kit).
 */
export { lambdaAsyncRetryDelaysMs } from './defaults.js';
export { InvalidBatchResponseError } from './errors.js';
export { SqsQueueSimulator } from './queue.js';
export type { SqsQueueOptions, SendOptions, SendResult, QueueStats, QueuedMessage } from './queue.js';
export { runEventSourceMapping, drain, parseBatchResponse } from './event-source.js';
export type { SqsLambdaHandler, EventSourceMappingOptions, PollReport, DrainOptions, DrainProgress, DrainReport } from './event-source.js';
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
export { fromKinesisRecord, fromDynamoDBStreamsRecord } from './stream-records.js';
