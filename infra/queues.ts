/**
 * Queue and async-invoke settings: one source for `serverless.yml` (which
 * reads `queues.json` with `${file(...)}`) and the local run, so the numbers
 * a developer sees locally are the ones that get deployed.
 */
import definitions from './queues.json' with { type: 'json' };

/** One SQS queue consumed by a Lambda event-source mapping, with its DLQ. */
export interface QueueDefinition {
  readonly fifo: boolean;
  /** The consumer's Lambda timeout. */
  readonly functionTimeoutSeconds: number;
  /** AWS guidance: at least 6x the function timeout, so retries of a throttled batch do not race. */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before the queue moves a message to its DLQ. */
  readonly maxReceiveCount: number;
  readonly messageRetentionSeconds: number;
  /** DLQs keep messages for the maximum (14 days) so an operator has time to look. */
  readonly dlqMessageRetentionSeconds: number;
  /** Records per invocation (event-source mapping `batchSize`). */
  readonly batchSize: number;
  readonly maximumBatchingWindowSeconds: number;
}

/** Lambda async-invoke settings of an EventBridge target, and its on-failure destination queue. */
export interface AsyncInvokeDefinition {
  /** Lambda retries a failed async invocation at most this many times (0–2). */
  readonly maximumRetryAttempts: number;
  readonly maximumEventAgeSeconds: number;
  readonly functionTimeoutSeconds: number;
  readonly dlqMessageRetentionSeconds: number;
}

export const queueDefinitions: Readonly<{
  payments: QueueDefinition;
  notifications: QueueDefinition;
}> = { payments: definitions.payments, notifications: definitions.notifications };

export const asyncInvokeDefinitions: Readonly<{ points: AsyncInvokeDefinition }> = {
  points: definitions.pointsAsync,
};

/** The outbox relay's DynamoDB Streams event-source mapping, and its on-failure queue. */
export interface StreamMappingDefinition {
  readonly functionTimeoutSeconds: number;
  /** Records per invocation (at most 10,000 for DynamoDB Streams). */
  readonly batchSize: number;
  readonly maximumBatchingWindowSeconds: number;
  /** Split a failing batch in two, so one bad record is isolated instead of blocking its neighbours. */
  readonly bisectBatchOnFunctionError: boolean;
  /** Retries of a failing batch before its records go to the on-failure destination. */
  readonly maximumRetryAttempts: number;
  /** Records older than this go to the on-failure destination unprocessed (the stream keeps 24 h). */
  readonly maximumRecordAgeSeconds: number;
  readonly dlqMessageRetentionSeconds: number;
}

export const streamMappingDefinitions: Readonly<{ outboxRelay: StreamMappingDefinition }> = {
  outboxRelay: definitions.outboxRelay,
};
