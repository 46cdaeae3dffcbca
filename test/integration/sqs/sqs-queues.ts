/**
 * Real queues for the SQS production-path tests (DLQ, backoff): fauxqs in
 * this process, a queue pair per test, and one poll of Lambda's event source
 * mapping (the simulator's, scripts/sim/, over the fauxqs transport).
 */
import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../infra/dynamodb-local.js';
import type { LocalSqs } from '../../../scripts/local/sqs-server.js';
import { sqsTransport } from '../../../scripts/local/sqs-transport.js';
import { receiveBatch, runBatch, type PollReport } from '../../../scripts/sim/sqs-mapping.js';

export interface Queue {
  readonly url: string;
  readonly arn: string;
}

/** A client on the local SQS that records the name of every command it sends. */
export function countingClient(sqs: LocalSqs): { client: SQSClient; commands: string[] } {
  const client = new SQSClient({
    endpoint: sqs.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    useQueueUrlAsEndpoint: false,
  });
  const commands: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize' },
  );
  return { client, commands };
}

/** Creates a queue; `fifo` adds the suffix and content-based settings FIFO needs. */
export async function createQueue(client: SQSClient, name: string, attributes: Record<string, string> = {}, fifo = false): Promise<Queue> {
  const QueueName = `${name}-${randomUUID().slice(0, 8)}${fifo ? '.fifo' : ''}`;
  const created = await client.send(
    new CreateQueueCommand({ QueueName, Attributes: { ...attributes, ...(fifo ? { FifoQueue: 'true' } : {}) } }),
  );
  const url = created.QueueUrl ?? '';
  const got = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return { url, arn: got.Attributes?.['QueueArn'] ?? '' };
}

/** A source queue with a DLQ in its redrive policy (or none). */
export async function queuePair(client: SQSClient, options: { fifo?: boolean; redrive?: boolean; visibility?: number } = {}) {
  const fifo = options.fifo === true;
  const dlq = await createQueue(client, 'dlq', {}, fifo);
  const redrive = options.redrive === false ? {} : { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 50 }) };
  const source = await createQueue(client, 'src', { VisibilityTimeout: String(options.visibility ?? 30), ...redrive }, fifo);
  return { source, dlq };
}

/** Sends `{ orderNo, ...extra }` (or a raw body) with optional attributes and FIFO group. */
export async function send(
  client: SQSClient,
  queue: Queue,
  body: string | Record<string, unknown>,
  options: { group?: string; attributes?: Record<string, MessageAttributeValue> } = {},
): Promise<string> {
  const out = await client.send(
    new SendMessageCommand({
      QueueUrl: queue.url,
      MessageBody: typeof body === 'string' ? body : JSON.stringify(body),
      ...(options.attributes === undefined ? {} : { MessageAttributes: options.attributes }),
      ...(options.group === undefined ? {} : { MessageGroupId: options.group, MessageDeduplicationId: randomUUID() }),
    }),
  );
  return out.MessageId ?? '';
}

/** One poll of the event source mapping: receive up to `batchSize`, invoke, delete what the response allows. */
export async function pollOnce(
  client: SQSClient,
  queue: Queue,
  handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>,
  batchSize = 10,
): Promise<PollReport | undefined> {
  const single = sqsTransport(client, queue, 0);
  // DeleteMessageBatch takes 10 entries: a larger batch (Lambda allows 10000) deletes in chunks, as the mapping does.
  const transport = {
    receive: single.receive,
    delete: async (records: readonly SQSRecord[]) => {
      const out: boolean[] = [];
      for (let i = 0; i < records.length; i += 10) out.push(...(await single.delete(records.slice(i, i + 10))));
      return out;
    },
  };
  const records = await receiveBatch(transport, batchSize);
  if (records.length === 0) return undefined;
  return runBatch(transport, records, Date.now(), { handler, functionName: 'test-fn', timeoutMs: () => 60_000 });
}

/** Every message visible in a queue now, with all attributes (received, so hidden for the queue's visibility timeout). */
export async function receiveAll(client: SQSClient, queue: Queue): Promise<Message[]> {
  const out = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queue.url,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return out.Messages ?? [];
}
