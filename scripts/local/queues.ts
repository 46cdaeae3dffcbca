/**
 * Creates the service's queues on the local SQS from `infra/queues.json`:
 * each consumed queue with its DLQ and redrive policy, plus the on-failure
 * destination of the async `points` invocation.
 */
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { queueDefinitions, type QueueDefinition } from '../../infra/queues.js';

/** A queue as the run uses it. */
export interface LocalQueue {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly fifo: boolean;
}

/** A consumed queue, its DLQ, and the settings its local mapping uses. */
export interface ConsumedQueue extends LocalQueue {
  readonly dlq: LocalQueue;
  readonly definition: QueueDefinition;
  /** Shortened for the local run; the deployed value is in `definition`. */
  readonly visibilityTimeoutSeconds: number;
}

export interface LocalQueues {
  readonly payments: ConsumedQueue;
  readonly notifications: ConsumedQueue;
  /** On-failure destination of the EventBridge → points async invocation. */
  readonly pointsFailures: LocalQueue;
}

async function createQueue(client: SQSClient, name: string, attributes: Record<string, string>): Promise<LocalQueue> {
  const fifo = name.endsWith('.fifo');
  const created = await client.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { ...attributes, ...(fifo ? { FifoQueue: 'true' } : {}) } }),
  );
  const url = created.QueueUrl;
  if (url === undefined) throw new Error(`CreateQueue ${name} returned no QueueUrl.`);
  const attrs = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  const arn = attrs.Attributes?.['QueueArn'];
  if (arn === undefined) throw new Error(`Queue ${name} has no QueueArn.`);
  return { name, url, arn, fifo };
}

async function createConsumed(
  client: SQSClient,
  baseName: string,
  definition: QueueDefinition,
  visibilityTimeoutSeconds: number,
): Promise<ConsumedQueue> {
  const suffix = definition.fifo ? '.fifo' : '';
  const dlq = await createQueue(client, `${baseName}-dlq${suffix}`, {
    MessageRetentionPeriod: String(definition.dlqMessageRetentionSeconds),
  });
  const queue = await createQueue(client, `${baseName}${suffix}`, {
    VisibilityTimeout: String(visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(definition.messageRetentionSeconds),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: definition.maxReceiveCount }),
  });
  return { ...queue, dlq, definition, visibilityTimeoutSeconds };
}

/**
 * Creates every queue. The visibility timeout is the one thing shortened
 * locally (seconds instead of minutes) so redeliveries and redrives happen
 * while you watch; `maxReceiveCount` and batch sizes are the deployed ones.
 */
export async function createLocalQueues(client: SQSClient, visibilityTimeoutSeconds: number): Promise<LocalQueues> {
  const payments = await createConsumed(client, 'payments', queueDefinitions.payments, visibilityTimeoutSeconds);
  const notifications = await createConsumed(client, 'notifications', queueDefinitions.notifications, visibilityTimeoutSeconds);
  const pointsFailures = await createQueue(client, 'points-failures', {});
  return { payments, notifications, pointsFailures };
}
