/**
 * The local SQS (fauxqs, or any SQS endpoint) as a transport of the one
 * event source mapping simulator (scripts/sim/sqs-mapping.ts):
 * `ReceiveMessage` output becomes the records Lambda's mapping would hand
 * the function (same fields, same string-typed attributes, lower-camel
 * message attributes), and deletes go out as `DeleteMessageBatch`.
 */
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { LOCAL_REGION } from '../../infra/dynamodb-local.js';
import type { SqsTransport } from '../sim/sqs-mapping.js';

function toLambdaAttributes(attributes: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  const out: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    out[name] = {
      dataType: value.DataType ?? 'String',
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return out;
}

function required(message: Message, field: 'MessageId' | 'ReceiptHandle' | 'Body' | 'MD5OfBody'): string {
  const value = message[field];
  if (value === undefined) throw new Error(`ReceiveMessage returned a message without ${field}.`);
  return value;
}

/** One received message as a Lambda `SQSRecord`. Ask ReceiveMessage for all system and message attributes. */
function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const sys = message.Attributes ?? {};
  const optional = (name: 'SequenceNumber' | 'MessageGroupId' | 'MessageDeduplicationId' | 'AWSTraceHeader') =>
    sys[name] === undefined ? {} : { [name]: sys[name] };
  return {
    messageId: required(message, 'MessageId'),
    receiptHandle: required(message, 'ReceiptHandle'),
    body: required(message, 'Body'),
    attributes: {
      ApproximateReceiveCount: sys['ApproximateReceiveCount'] ?? '1',
      SentTimestamp: sys['SentTimestamp'] ?? String(Date.now()),
      SenderId: sys['SenderId'] ?? 'local',
      ApproximateFirstReceiveTimestamp: sys['ApproximateFirstReceiveTimestamp'] ?? String(Date.now()),
      ...optional('SequenceNumber'),
      ...optional('MessageGroupId'),
      ...optional('MessageDeduplicationId'),
      ...optional('AWSTraceHeader'),
    },
    messageAttributes: toLambdaAttributes(message.MessageAttributes),
    md5OfBody: required(message, 'MD5OfBody'),
    ...(message.MD5OfMessageAttributes === undefined ? {} : { md5OfMessageAttributes: message.MD5OfMessageAttributes }),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: LOCAL_REGION,
  };
}

/** A batch of received messages as one `SQSEvent`, in receive order (FIFO order matters). */
export function toSqsEvent(messages: readonly Message[], queueArn: string): SQSEvent {
  return { Records: messages.map((m) => toSqsRecord(m, queueArn)) };
}

/** Where the transport receives from. */
export interface SqsEndpointQueue {
  readonly url: string;
  readonly arn: string;
}

/** Receives with a short long-poll (so stopping is quick) and all attributes; deletes in one batch request. */
export function sqsTransport(client: SQSClient, queue: SqsEndpointQueue, waitTimeSeconds = 1): SqsTransport {
  return {
    receive: async (maxMessages, signal) => {
      const command = new ReceiveMessageCommand({
        QueueUrl: queue.url,
        MaxNumberOfMessages: maxMessages,
        WaitTimeSeconds: waitTimeSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      });
      const result = await client.send(command, signal === undefined ? {} : { abortSignal: signal });
      return (result.Messages ?? []).map((m) => toSqsRecord(m, queue.arn));
    },
    delete: async (records) => {
      const entries = records.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle }));
      const result = await client.send(new DeleteMessageBatchCommand({ QueueUrl: queue.url, Entries: entries }));
      const failed = new Set((result.Failed ?? []).map((f) => f.Id));
      // A failed delete means a redelivery later: the duplicate path, not a loss.
      if (failed.size > 0) process.emitWarning(`DeleteMessageBatch on ${queue.url}: ${failed.size} entries failed.`);
      return entries.map((e) => !failed.has(e.Id));
    },
  };
}
