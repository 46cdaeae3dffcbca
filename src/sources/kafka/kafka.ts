/**
 * Kafka (Amazon MSK `aws:kafka`, self-managed `SelfManagedKafka`) as a batch source, and the readers of a record's
 * bytes (`kafkaValue`, `kafkaHeaders`). Lambda hands `event.records`, keyed by topic-partition (`"orders-0"`), each a
 * list in offset order. Each topic-partition is an ordered lane that stops at its first failure (the mapping resumes
 * from the lowest offset named), as a Kinesis shard does. The response names a record by an object
 * (https://docs.aws.amazon.com/lambda/latest/dg/kafka-retry-configurations.html):
 * `{ batchItemFailures: [{ itemIdentifier: { partition: "orders-0", offset: 15 } }] }`; inside, its id is the string
 * `orders-0:15` (a topic name holds no `:`).
 */
import { behindFailures } from '../../batch/stream-order.js';
import { BodyParseError, type InvalidRecordError } from '../../engine/errors.js';
import { isPlainObject } from '../../engine/options.js';
import type { BatchSource, PlainReader, Refusal } from '../../engine/source.js';
import { decodePayload, utf8 } from '../streams/data.js';

/** One header of a Kafka record as Lambda sends it: its name, and its value as byte values. */
export type KafkaHeader = Readonly<Record<string, readonly number[]>>;

/** A Kafka record as Lambda's MSK and self-managed Kafka event source mappings send it (`MSKRecord` from `aws-lambda` fits). */
export interface KafkaRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly timestampType: 'CREATE_TIME' | 'LOG_APPEND_TIME';
  /** The record key, base64; absent when the producer set none. */
  readonly key?: string | null;
  /** The record value, base64; absent or null for a tombstone. */
  readonly value?: string | null;
  readonly headers?: readonly KafkaHeader[];
}

/** A Lambda Kafka event: Amazon MSK (`aws:kafka`) or self-managed Apache Kafka (`SelfManagedKafka`); `MSKEvent` and `SelfManagedKafkaEvent` from `aws-lambda` fit. */
export interface KafkaEvent {
  readonly eventSource: 'aws:kafka' | 'SelfManagedKafka';
  readonly eventSourceArn?: string;
  readonly bootstrapServers?: string;
  /** The records by topic-partition (`"orders-0"`), each list in offset order. */
  readonly records: Readonly<Record<string, readonly KafkaRecord[]>>;
}

/** The partial batch response of a Kafka event source mapping: each failed record by topic-partition and offset. */
export interface KafkaBatchResponse {
  batchItemFailures: Array<{ itemIdentifier: { partition: string; offset: number } }>;
}

const EVENT_SOURCES = ['aws:kafka', 'SelfManagedKafka'];
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const isOffset = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The topic-partition of a record (the key of `event.records`, the lane, the response's `partition`). */
function partitionOf(record: Pick<KafkaRecord, 'topic' | 'partition'>): string {
  return `${record.topic}-${record.partition}`;
}

/** Whether a record names its topic, partition and offset: what its id (`orders-0:15`) is made of. */
function isNamed(record: unknown): boolean {
  if (!isPlainObject(record)) return false;
  const { topic, partition, offset } = record;
  return typeof topic === 'string' && topic.length > 0 && isOffset(partition) && isOffset(offset);
}

/** The response's identifier of a record id (`orders-0:15` -> `{ partition: 'orders-0', offset: 15 }`). */
function identifierOf(id: string): { partition: string; offset: number } {
  const colon = id.lastIndexOf(':');
  return { partition: id.slice(0, colon), offset: Number(id.slice(colon + 1)) };
}

const refuse = (why: string): Refusal => ({ refused: `not a Kafka event (Amazon MSK or self-managed): ${why}` });

/**
 * The records of an event's `records` object, partition after partition, or
 * why it is refused: a record the response cannot name fails the whole
 * event, since its partition could not be resumed from it.
 */
function recordsOf(event: unknown): KafkaRecord[] | Refusal {
  if (!isPlainObject(event) || !isPlainObject(event['records'])) return refuse('it has no records object (keyed by topic-partition)');
  const source = event['eventSource'];
  if (source !== undefined && !EVENT_SOURCES.includes(source as string))
    return refuse(`it comes from ${JSON.stringify(source)}, not "aws:kafka" or "SelfManagedKafka"`);
  const records: KafkaRecord[] = [];
  for (const [partition, list] of Object.entries(event['records'])) {
    if (!Array.isArray(list)) return refuse(`records["${partition}"] is not a list`);
    const i = list.findIndex((record) => !isNamed(record));
    if (i >= 0) return refuse(`record ${i} of "${partition}" has no topic, partition and offset (a non-negative integer)`);
    records.push(...(list as KafkaRecord[]));
  }
  return records;
}

/** How errors name a record: `Kafka record orders-0@15`. */
const whereOf = (record: KafkaRecord): string => `Kafka record ${partitionOf(record)}@${record.offset}`;

/** Why a base64 field cannot be read, or `undefined`; absent and null are readable (no key, a tombstone). */
function base64Error(record: KafkaRecord, field: 'key' | 'value'): BodyParseError | undefined {
  const value: unknown = record[field];
  if (value === undefined || value === null || (typeof value === 'string' && BASE64.test(value))) return undefined;
  const got = typeof value === 'string' ? 'a string that is not base64' : typeof value;
  return new BodyParseError(`${whereOf(record)}: ${field} is not base64 (got ${got}).`);
}

function headersError(record: KafkaRecord): BodyParseError | undefined {
  const headers: unknown = record.headers;
  if (headers === undefined || headers === null) return undefined;
  const bytes = (v: unknown) => Array.isArray(v) && v.every((b) => Number.isInteger(b) && (b as number) >= -128 && (b as number) <= 255);
  const ok = Array.isArray(headers) && headers.every((h) => isPlainObject(h) && Object.values(h).every(bytes));
  return ok ? undefined : new BodyParseError(`${whereOf(record)}: headers are not a list of { name: byte values }.`);
}

/** Why a record cannot be read at all, or `undefined`: checked without decoding it. */
function unreadable(record: KafkaRecord): InvalidRecordError | undefined {
  return base64Error(record, 'value') ?? base64Error(record, 'key') ?? headersError(record);
}

/** The event holding only these records, grouped back by topic-partition in their order. */
function withRecords(event: KafkaEvent, records: readonly KafkaRecord[]): KafkaEvent {
  const grouped: Record<string, KafkaRecord[]> = {};
  for (const record of records) (grouped[partitionOf(record)] ??= []).push(record);
  return { ...event, records: grouped };
}

/** A record's id (`topic-partition:offset`), lane (its topic-partition) and attempt (1: Kafka records carry no delivery count). */
const placeOf = (record: KafkaRecord) => ({ id: `${partitionOf(record)}:${record.offset}`, lane: partitionOf(record), attempt: 1 });

const respond = (retry: readonly string[]): KafkaBatchResponse => ({
  batchItemFailures: retry.map((id) => ({ itemIdentifier: identifierOf(id) })),
});

/** What `eachRecord` reads of a Kafka event with no middleware in front (no record checks: see {@link PlainReader}). */
export const kafkaRecords: PlainReader<KafkaRecord, KafkaBatchResponse> = { name: 'kafka', records: recordsOf, read: placeOf, respond };

/** Kafka as a batch source. */
export const kafkaSource: BatchSource<KafkaEvent, KafkaRecord, KafkaBatchResponse> = {
  name: 'kafka',
  records: recordsOf,
  withRecords,
  read: (record) => ({ ...placeOf(record), unreadable: unreadable(record) }),
  behindFailures,
  respond,
  retriedIn(response) {
    const failures: unknown = isPlainObject(response) ? response['batchItemFailures'] : undefined;
    const ids = (Array.isArray(failures) ? failures : []).map((f: unknown) => {
      const item: unknown = isPlainObject(f) ? f['itemIdentifier'] : undefined;
      return isPlainObject(item) && typeof item['partition'] === 'string' && isOffset(item['offset'])
        ? `${item['partition']}:${item['offset']}`
        : undefined;
    });
    return new Set(ids.filter((id) => id !== undefined));
  },
};

/** The bytes of a base64 field, or the error that makes the record fail alone. */
function bytesOf(record: KafkaRecord, field: 'key' | 'value'): Buffer | null {
  const error = base64Error(record, field);
  if (error !== undefined) throw error;
  const raw = record[field];
  return raw === undefined || raw === null ? null : Buffer.from(raw, 'base64');
}

/**
 * A Kafka record's `value`, decoded from base64: the JSON value when the
 * bytes are JSON text, else the text when they are UTF-8, else the bytes;
 * `null` for a tombstone (no value). With `'json'`, a value that is not JSON
 * text is a `BodyParseError` (read a key from it: a body that does not parse
 * then fails alone with that error, not as a missing key).
 *
 * @throws BodyParseError when `value` is not base64, or (with `'json'`) not JSON (the record fails alone).
 * @example
 * ```ts
 * import { kafkaValue, type KafkaRecord } from 'effectively-once';
 *
 * const key = (record: KafkaRecord) => kafkaValue<{ orderNo: string }>(record, 'json').orderNo;
 * ```
 */
export function kafkaValue<T = unknown>(record: KafkaRecord, as?: 'json'): T {
  const bytes = bytesOf(record, 'value');
  const where = whereOf(record);
  if (bytes === null) {
    if (as === 'json') throw new BodyParseError(`${where} has no value (a tombstone), not JSON.`);
    return null as T;
  }
  const refuse = (reason: string, cause: unknown) => new BodyParseError(`${where}: ${reason}.`, { cause });
  return decodePayload(bytes, as === 'json' ? refuse : undefined) as T;
}

/**
 * A Kafka record's headers by name, decoded from the byte values Lambda
 * sends: as UTF-8 text, or with `'bytes'` as `Uint8Array`s. A name that
 * appears more than once keeps its last value (Kafka's `lastHeader`).
 *
 * @throws BodyParseError when the headers are malformed, or (as text) a value is not UTF-8 (the record fails alone).
 * @example
 * ```ts
 * import { kafkaHeaders, type KafkaRecord } from 'effectively-once';
 *
 * // A producer's own event id, sent as a header: a better key than the offset.
 * const key = (record: KafkaRecord) => kafkaHeaders(record)['event-id'];
 * ```
 */
export function kafkaHeaders(record: KafkaRecord): Readonly<Record<string, string>>;
export function kafkaHeaders(record: KafkaRecord, as: 'bytes'): Readonly<Record<string, Uint8Array>>;
export function kafkaHeaders(record: KafkaRecord, as?: 'bytes'): Readonly<Record<string, string | Uint8Array>> {
  const where = whereOf(record);
  const error = headersError(record);
  if (error !== undefined) throw error;
  const out: Record<string, string | Uint8Array> = {};
  for (const header of record.headers ?? []) {
    for (const [name, values] of Object.entries(header)) {
      // Java producers' bytes are signed (-128..127); both read as the same octets.
      const bytes = Uint8Array.from(values, (b) => b & 0xff);
      if (as === 'bytes') {
        out[name] = bytes;
        continue;
      }
      try {
        out[name] = utf8.decode(bytes);
      } catch (err) {
        throw new BodyParseError(`${where}: header "${name}" is not UTF-8 text (read it with kafkaHeaders(record, 'bytes')).`, {
          cause: err,
        });
      }
    }
  }
  return out;
}
