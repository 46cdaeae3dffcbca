/**
 * The copy of a permanently failed record that goes to the dead-letter
 * queue, and the queue URLs it needs. Pure: no AWS SDK here, so the shapes are
 * plain objects the SQS module hands to `SendMessageBatch` as they are.
 */
import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { sha256 } from '../../engine/hashing.js';
import { errorParts } from '../../engine/errors.js';

/** SQS takes at most 10 message attributes per message. */
const MAX_ATTRIBUTES = 10;
/** Ours: reason, error name, consumer, key hash, message id. The originals get the rest. */
const OUR_ATTRIBUTES = 5;
/** SQS's reserved-for-us prefix: an original attribute with it is one of ours from an earlier dead-lettering. */
const PREFIX = 'eo-';
/** A reason longer than this is cut: attributes count against the 256 KiB message size. */
const MAX_REASON = 1_000;

/** A message attribute as `SendMessageBatch` takes it. */
export interface DlqAttribute {
  readonly DataType: string;
  readonly StringValue?: string;
  readonly BinaryValue?: Uint8Array;
}

/** One `SendMessageBatch` entry. */
export interface DlqEntry {
  readonly Id: string;
  readonly MessageBody: string;
  readonly MessageAttributes: Record<string, DlqAttribute>;
  readonly MessageGroupId?: string;
  readonly MessageDeduplicationId?: string;
}

/** Why the record is dead-lettered, as the attributes say it. */
export interface DlqReason {
  readonly consumer: string;
  readonly key: string | undefined;
  readonly error: unknown;
}

const text = (value: string): DlqAttribute => ({ DataType: 'String', StringValue: value });

function originalAttributes(attributes: SQSMessageAttributes | undefined): Record<string, DlqAttribute> {
  const out: Record<string, DlqAttribute> = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (name.startsWith(PREFIX)) continue;
    if (value.stringValue !== undefined) out[name] = { DataType: value.dataType, StringValue: value.stringValue };
    else if (value.binaryValue !== undefined)
      out[name] = { DataType: value.dataType, BinaryValue: Buffer.from(value.binaryValue, 'base64') };
  }
  return out;
}

/**
 * The original attributes, copied one for one when they fit beside ours (at
 * most 5); otherwise all of them as one JSON attribute, `eo-original-attributes`,
 * so none is dropped silently.
 */
function keptAttributes(record: SQSRecord): Record<string, DlqAttribute> {
  const originals = originalAttributes(record.messageAttributes);
  if (Object.keys(originals).length <= MAX_ATTRIBUTES - OUR_ATTRIBUTES) return originals;
  // In the Lambda record's shape, without earlier eo-* attributes: ours replace them (docs/sqs-dlq-backoff.md).
  const own = Object.entries(record.messageAttributes ?? {}).filter(([name]) => !name.startsWith(PREFIX));
  return { [`${PREFIX}original-attributes`]: text(JSON.stringify(Object.fromEntries(own))) };
}

/**
 * The DLQ entry for one record: the original body, the original attributes
 * and ours (`eo-reason`, `eo-error-name`, `eo-consumer`, `eo-key-hash`: the
 * SHA-256 of the key, never the key; `eo-message-id`: the source message's
 * id, which tells copies of one delivery apart from distinct messages). A FIFO DLQ gets the record's message
 * group and its message id as the deduplication id, so a retried send is
 * not stored twice.
 */
export function dlqEntry(id: string, record: SQSRecord, reason: DlqReason, fifo: boolean): DlqEntry {
  const { name, message } = errorParts(reason.error);
  const ours: Record<string, DlqAttribute> = {
    [`${PREFIX}reason`]: text(message.length === 0 ? name : message.slice(0, MAX_REASON)),
    [`${PREFIX}error-name`]: text(name),
    [`${PREFIX}consumer`]: text(reason.consumer),
    [`${PREFIX}message-id`]: text(record.messageId),
    ...(reason.key === undefined ? {} : { [`${PREFIX}key-hash`]: text(sha256(reason.key)) }),
  };
  return {
    Id: id,
    MessageBody: record.body,
    MessageAttributes: { ...keptAttributes(record), ...ours },
    ...(fifo ? { MessageGroupId: record.attributes.MessageGroupId ?? 'default', MessageDeduplicationId: record.messageId } : {}),
  };
}

/**
 * The queue URL of a queue ARN (`arn:aws:sqs:region:account:name`), in the
 * classic `https://sqs.<region>.amazonaws.com/<account>/<name>` form the SDK
 * accepts; `undefined` for anything else.
 */
export function queueUrlOfArn(arn: string): string | undefined {
  const [prefix, partition, service, region, account, name, ...rest] = arn.split(':');
  if (prefix !== 'arn' || service !== 'sqs' || rest.length > 0 || !region || !account || !name) return undefined;
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}

/**
 * A queue's URL from its ARN: through the user's `queueUrl` when given (a
 * local SQS), else the regional endpoint; `undefined` for what is not an
 * SQS queue ARN.
 */
export function queueUrlFor(arn: string, queueUrl: ((arn: string) => string | undefined) | undefined): string | undefined {
  return queueUrl === undefined ? queueUrlOfArn(arn) : queueUrl(arn);
}

/** Whether a queue URL names a FIFO queue. */
export const isFifoUrl = (url: string): boolean => url.endsWith('.fifo');
