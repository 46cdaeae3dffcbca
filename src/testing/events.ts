/**
 * Builders of Lambda inputs shaped like the ones AWS really sends, so code
 * under test meets the same fields (FIFO attributes, md5s, ARNs) it will meet
 * in production.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Context, EventBridgeEvent, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { Clock } from '../engine/clock.js';
import type { KafkaEvent, KafkaRecord } from '../sources/kafka/kafka.js';
import { systemClock } from '../engine/clock.js';
import { checkOptions, is, type OptionRules } from '../engine/options.js';
import { testingDefaults } from './defaults.js';
import { SimulationError } from './errors.js';
import { clockRule, intIn, positiveMs } from './rules.js';
import { payloadBytes } from './stream-records.js';

/** Options of {@link sqsRecord}. Everything but `body` has a realistic default. */
export interface SqsRecordOptions {
  /** The message body; a string is used as is, anything else is JSON-encoded. */
  readonly body: unknown;
  readonly messageId?: string;
  readonly receiptHandle?: string;
  /** Queue ARN; one ending in `.fifo` makes a FIFO record. */
  readonly queueArn?: string;
  /** FIFO message group (default `'default'` on FIFO queues). */
  readonly groupId?: string;
  /** FIFO deduplication id (default: SHA-256 of the body, as content-based deduplication does). */
  readonly deduplicationId?: string;
  /** FIFO sequence number (default: increasing per process). */
  readonly sequenceNumber?: string;
  /** `ApproximateReceiveCount` (default 1). */
  readonly receiveCount?: number;
  /** Send time, epoch ms (default: now). */
  readonly sentAt?: number;
  /** First receive time, epoch ms (default: `sentAt`). */
  readonly firstReceivedAt?: number;
  /** Message attributes; `md5OfMessageAttributes` is computed from them. */
  readonly messageAttributes?: SQSMessageAttributes;
  /** Overrides of the system attributes, applied last. */
  readonly attributes?: Partial<SQSRecordAttributes>;
  readonly clock?: Clock;
}

/** Hex MD5 of a UTF-8 string: what SQS puts in `md5OfBody`. */
export function md5Hex(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** A receipt handle shaped like SQS's (opaque, different on every receive). */
export function newReceiptHandle(): string {
  return `AQEB${randomBytes(48).toString('base64')}`;
}

// FIFO sequence numbers are 20-digit, strictly increasing strings.
let nextSequence = 18_000_000_000_000_000_000n;

/** The next FIFO sequence number of this process. */
export function nextSequenceNumber(): string {
  nextSequence += 1n;
  return nextSequence.toString();
}

function lengthPrefixed(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/**
 * `md5OfMessageAttributes` as SQS computes it: attributes sorted by name, each
 * encoded as length-prefixed name, data type, a transport byte (1 string, 2
 * binary) and the length-prefixed value, then MD5 over the whole.
 * Undefined when there are no attributes (Lambda then omits the field).
 */
export function md5OfMessageAttributes(attributes: SQSMessageAttributes): string | undefined {
  const names = Object.keys(attributes).sort();
  if (names.length === 0) return undefined;
  const hash = createHash('md5');
  for (const name of names) {
    const attribute = attributes[name];
    if (attribute === undefined) continue;
    const binary = attribute.dataType.startsWith('Binary');
    hash.update(lengthPrefixed(Buffer.from(name, 'utf8')));
    hash.update(lengthPrefixed(Buffer.from(attribute.dataType, 'utf8')));
    hash.update(Buffer.from([binary ? 2 : 1]));
    const value = binary ? Buffer.from(attribute.binaryValue ?? '', 'base64') : Buffer.from(attribute.stringValue ?? '', 'utf8');
    hash.update(lengthPrefixed(value));
  }
  return hash.digest('hex');
}

/** Region of an ARN (`arn:aws:sqs:REGION:ACCOUNT:NAME`). */
function regionOf(arn: string): string {
  const region = arn.split(':')[3];
  if (region === undefined || region.length === 0) throw new TypeError(`sqsRecord: option "queueArn" is not an ARN: "${arn}".`);
  return region;
}

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  const text = JSON.stringify(body);
  if (text === undefined) throw new TypeError('sqsRecord: option "body" cannot be JSON-encoded.');
  return text;
}

function fifoAttributes(options: SqsRecordOptions, body: string): Partial<SQSRecordAttributes> {
  return {
    MessageGroupId: options.groupId ?? 'default',
    MessageDeduplicationId: options.deduplicationId ?? createHash('sha256').update(body).digest('hex'),
    SequenceNumber: options.sequenceNumber ?? nextSequenceNumber(),
  };
}

function systemAttributes(options: SqsRecordOptions, body: string, fifo: boolean): SQSRecordAttributes {
  const sentAt = options.sentAt ?? (options.clock ?? systemClock).now();
  const receiveCount = options.receiveCount ?? 1;
  if (!Number.isInteger(receiveCount) || receiveCount < 1) {
    throw new TypeError(`sqsRecord: option "receiveCount" must be an integer >= 1, got ${String(receiveCount)}.`);
  }
  if (!fifo && options.deduplicationId !== undefined) {
    throw new TypeError('sqsRecord: option "deduplicationId" is only valid for a FIFO queue (ARN ending in ".fifo").');
  }
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: String(receiveCount),
    SentTimestamp: String(sentAt),
    SenderId: testingDefaults.senderId,
    ApproximateFirstReceiveTimestamp: String(options.firstReceivedAt ?? sentAt),
  };
  // Standard queues carry MessageGroupId only when the producer set one (fair queues).
  const extra = fifo ? fifoAttributes(options, body) : options.groupId === undefined ? {} : { MessageGroupId: options.groupId };
  return { ...attributes, ...extra, ...options.attributes };
}

/**
 * One SQS record as Lambda delivers it.
 *
 * @example
 * ```ts
 * import { sqsRecord } from 'effectively-once/testing';
 * const record = sqsRecord({
 *   body: { orderNo: 'o-1' },
 *   queueArn: 'arn:aws:sqs:eu-west-1:123456789012:payments.fifo',
 *   groupId: 'o-1',
 * });
 * console.log(record.attributes.MessageGroupId, record.md5OfBody);
 * ```
 */
export function sqsRecord(options: SqsRecordOptions): SQSRecord {
  const queueArn = options.queueArn ?? `arn:aws:sqs:${testingDefaults.region}:${testingDefaults.accountId}:${testingDefaults.queueName}`;
  const body = bodyText(options.body);
  const messageAttributes = options.messageAttributes ?? {};
  const md5OfAttributes = md5OfMessageAttributes(messageAttributes);
  const record: SQSRecord = {
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: options.receiptHandle ?? newReceiptHandle(),
    body,
    attributes: systemAttributes(options, body, queueArn.endsWith('.fifo')),
    messageAttributes,
    md5OfBody: md5Hex(body),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: regionOf(queueArn),
  };
  return md5OfAttributes === undefined ? record : { ...record, md5OfMessageAttributes: md5OfAttributes };
}

/**
 * An `SQSEvent` holding `records` (copied, so later changes to the array do not leak in).
 *
 * @example
 * ```ts
 * import { sqsEvent, sqsRecord } from 'effectively-once/testing';
 * const event = sqsEvent([sqsRecord({ body: 'a' }), sqsRecord({ body: 'b' })]);
 * console.log(event.Records.length); // 2
 * ```
 */
export function sqsEvent(records: readonly SQSRecord[]): SQSEvent {
  return { Records: [...records] };
}

/** Options of {@link eventBridgeEvent}. */
export interface EventBridgeEventOptions<TType extends string, TDetail> {
  readonly detailType: TType;
  readonly source: string;
  readonly detail: TDetail;
  /** Event id (default: a random UUID, as EventBridge assigns one per event). */
  readonly id?: string;
  /** Event time, epoch ms (default: now by `clock`). */
  readonly time?: number;
  readonly resources?: readonly string[];
  readonly account?: string;
  readonly region?: string;
  readonly clock?: Clock;
}

/**
 * An EventBridge event as a Lambda target receives it.
 *
 * @example
 * ```ts
 * import { eventBridgeEvent } from 'effectively-once/testing';
 * const event = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop.payments', detail: { orderNo: 'o-1' } });
 * console.log(event['detail-type'], event.detail.orderNo);
 * ```
 */
export function eventBridgeEvent<TType extends string, TDetail>(
  options: EventBridgeEventOptions<TType, TDetail>,
): EventBridgeEvent<TType, TDetail> {
  const time = options.time ?? (options.clock ?? systemClock).now();
  return {
    version: '0',
    id: options.id ?? randomUUID(),
    'detail-type': options.detailType,
    source: options.source,
    account: options.account ?? testingDefaults.accountId,
    // EventBridge times have second precision.
    time: new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: options.region ?? testingDefaults.region,
    resources: [...(options.resources ?? [])],
    detail: options.detail,
  };
}

/** Options of {@link lambdaContext}. */
export interface LambdaContextOptions {
  readonly functionName?: string;
  /** Function timeout; `getRemainingTimeInMillis()` counts down from it (default 3000, Lambda's default). */
  readonly timeoutMs?: number;
  /** Where time comes from (default: the wall clock). */
  readonly clock?: Clock;
  readonly awsRequestId?: string;
  readonly memoryLimitInMB?: number;
  readonly region?: string;
  readonly accountId?: string;
}

const contextRules: OptionRules = {
  functionName: is.nonEmptyString,
  timeoutMs: positiveMs,
  clock: clockRule,
  awsRequestId: is.nonEmptyString,
  memoryLimitInMB: intIn(128, 10_240),
  region: is.nonEmptyString,
  accountId: is.nonEmptyString,
};

function unsupportedCallbackApi(name: string): () => never {
  return function callbackApi(): never {
    throw new SimulationError(`context.${name}() is the deprecated callback API; return a promise from the handler instead.`);
  };
}

/**
 * A Lambda `Context` whose `getRemainingTimeInMillis()` counts down from
 * `timeoutMs` by `clock` (never below 0), starting when it is built.
 *
 * @example
 * ```ts
 * import { lambdaContext, ManualClock } from 'effectively-once/testing';
 * const clock = new ManualClock();
 * const context = lambdaContext({ functionName: 'payments', timeoutMs: 10_000, clock });
 * clock.advance(4_000);
 * console.log(context.getRemainingTimeInMillis()); // 6000
 * ```
 */
export function lambdaContext(options: LambdaContextOptions = {}): Context {
  checkOptions('lambdaContext', options, contextRules);
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? testingDefaults.timeoutMs;
  const functionName = options.functionName ?? testingDefaults.functionName;
  const region = options.region ?? testingDefaults.region;
  const startedAt = clock.now();
  const deadline = startedAt + timeoutMs;
  const day = new Date(startedAt).toISOString().slice(0, 10).replaceAll('-', '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${options.accountId ?? testingDefaults.accountId}:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? testingDefaults.memoryLimitInMB),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - clock.now()),
    done: unsupportedCallbackApi('done'),
    fail: unsupportedCallbackApi('fail'),
    succeed: unsupportedCallbackApi('succeed'),
  };
}

/** One record of {@link kafkaEvent}: everything but `offset` and `value` has a default. */
export interface KafkaRecordOptions {
  /** The value: bytes as they are, a string as UTF-8, `null` for a tombstone (no value), anything else as its JSON text. */
  readonly value: unknown;
  readonly offset: number;
  /** Default `orders`. */
  readonly topic?: string;
  /** Default 0. */
  readonly partition?: number;
  /** The record key: bytes as they are, a string as UTF-8. Default: none (the field is absent). */
  readonly key?: string | Uint8Array;
  /** Headers by name: text as UTF-8, or bytes; sent as Lambda sends them (a list of `{ name: byte values }`). */
  readonly headers?: Readonly<Record<string, string | Uint8Array>>;
  /** Epoch ms (default: now). */
  readonly timestamp?: number;
}

function kafkaRecordOf(options: KafkaRecordOptions): KafkaRecord {
  const headers = Object.entries(options.headers ?? {}).map(([name, value]) => ({ [name]: [...payloadBytes(value)] }));
  return {
    topic: options.topic ?? 'orders',
    partition: options.partition ?? 0,
    offset: options.offset,
    timestamp: options.timestamp ?? Date.now(),
    timestampType: 'CREATE_TIME',
    ...(options.key === undefined ? {} : { key: payloadBytes(options.key).toString('base64') }),
    ...(options.value === null ? {} : { value: payloadBytes(options.value).toString('base64') }),
    headers,
  };
}

/**
 * A Lambda Kafka event holding these records, grouped by topic-partition
 * (`orders-0`) in the order given: Amazon MSK's (`aws:kafka`, default) or
 * self-managed Apache Kafka's (`SelfManagedKafka`), key and value in base64,
 * headers as byte values.
 *
 * @example
 * ```ts
 * import { kafkaEvent } from 'effectively-once/testing';
 * const event = kafkaEvent([{ offset: 15, key: 'o-1', value: { orderNo: 'o-1' }, headers: { 'event-id': 'e-1' } }]);
 * console.log(Object.keys(event.records), event.records['orders-0']?.[0]?.key); // [ 'orders-0' ] 'by0x'
 * ```
 */
export function kafkaEvent(
  records: readonly KafkaRecordOptions[],
  options: { readonly eventSource?: 'aws:kafka' | 'SelfManagedKafka' } = {},
): KafkaEvent {
  const grouped: Record<string, KafkaRecord[]> = {};
  for (const record of records.map(kafkaRecordOf)) (grouped[`${record.topic}-${record.partition}`] ??= []).push(record);
  const bootstrapServers =
    'b-1.cluster.abc123.c2.kafka.us-east-1.amazonaws.com:9098,b-2.cluster.abc123.c2.kafka.us-east-1.amazonaws.com:9098';
  if (options.eventSource === 'SelfManagedKafka') return { eventSource: 'SelfManagedKafka', bootstrapServers, records: grouped };
  const eventSourceArn = `arn:aws:kafka:${testingDefaults.region}:${testingDefaults.accountId}:cluster/cluster/abcd1234-abcd-cafe-abab-9876543210ab-4`;
  return { eventSource: 'aws:kafka', eventSourceArn, bootstrapServers, records: grouped };
}
