/**
 * Turns `ReceiveMessage` output into the `SQSEvent` Lambda's event-source
 * mapping would hand the function: same fields, same string-typed
 * attributes, lower-camel message attributes.
 */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { LOCAL_REGION } from '../../infra/dynamodb-local.js';

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
