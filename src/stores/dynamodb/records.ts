/** Conversions between stored items and `IdempotencyRecord`s, and the small facts about a record the store decides on. */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { EffectivelyOnceError, errorParts, UnstorableResultError } from '../../engine/errors.js';
import { sha256 } from '../../engine/hashing.js';
import { retentionExpired } from '../../engine/lease.js';
import { numericText } from '../../engine/numbers.js';
import type { IdempotencyRecord, IdempotencyStatus } from '../../engine/record.js';
import { itemSize } from '../../engine/size.js';

const STATUSES: ReadonlySet<string> = new Set<IdempotencyStatus>(['IN_PROGRESS', 'COMPLETED', 'FAILED']);
const OPTIONAL_STRINGS = ['owner', 'payloadHash', 'messageId', 'lastError'] as const;
const OPTIONAL_NUMBERS = ['leaseUntil', 'claimedAt', 'completedAt'] as const;

/** Longest `lastError` kept on a FAILED record, in bytes: enough to diagnose, small enough never to matter for size. */
export const MAX_LAST_ERROR_BYTES = 1024;

/**
 * A plain (unmarshalled) item as an `IdempotencyRecord`. Internal attributes
 * such as `inflight` are left out.
 * @throws EffectivelyOnceError when the item is not an idempotency record.
 */
export function toRecord(raw: Readonly<Record<string, unknown>>): IdempotencyRecord {
  const item = withPlainNumbers(raw);
  const { id, status, expiresAt, attempts } = item;
  if (typeof id !== 'string' || typeof status !== 'string' || !STATUSES.has(status) || typeof expiresAt !== 'number') {
    throw new EffectivelyOnceError(`The item ${JSON.stringify(id)} is not an idempotency record.`);
  }
  const record: Record<string, unknown> = { id, status, expiresAt, attempts: typeof attempts === 'number' ? attempts : 0 };
  for (const name of OPTIONAL_STRINGS) if (typeof item[name] === 'string') record[name] = item[name];
  for (const name of OPTIONAL_NUMBERS) if (typeof item[name] === 'number') record[name] = item[name];
  if (item['result'] !== undefined) record['result'] = decodeResult(item['result']);
  return record as unknown as IdempotencyRecord;
}

/**
 * The record carried by a failed condition (`ReturnValuesOnConditionCheckFailure:
 * 'ALL_OLD'`). The DocumentClient does not unmarshall error payloads, so the
 * item arrives in wire format; `undefined` when there was no item.
 */
export function recordFromWire(item: Record<string, AttributeValue> | undefined): IdempotencyRecord | undefined {
  return item === undefined || Object.keys(item).length === 0 ? undefined : toRecord(unmarshall(item));
}

/**
 * Whether a record still counts at `now`: DynamoDB's TTL deletes lazily
 * (often hours late), so an item past `expiresAt` is treated as absent.
 */
export function isLive(record: IdempotencyRecord, now: number): boolean {
  return !retentionExpired(record.expiresAt, now);
}

/**
 * A failure as a short string for `lastError`, cut to {@link MAX_LAST_ERROR_BYTES} (by bytes, whole characters) so a
 * huge error cannot push the item over DynamoDB's size limit. With `'hash'` the message is replaced by its SHA-256 (it
 * may hold personal data), taken as the log line takes it, so the hash matches the message logged for that failure.
 */
export function errorText(error: unknown, mode: 'hash' | 'keep' = 'keep'): string {
  const { name, message } = errorParts(error);
  const text = mode === 'hash' ? `${name} (message sha256:${sha256(message)})` : error instanceof Error ? `${name}: ${message}` : message;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    bytes += Buffer.byteLength(ch);
    if (bytes > MAX_LAST_ERROR_BYTES) break;
    out += ch;
  }
  return out;
}

/**
 * Room kept for attributes a completion does not see (the claim's message id and payload hash): SQS and EventBridge
 * ids are 36 characters, a Kinesis sequence number 56 digits; a Kafka id (a topic of up to 249 characters) or a
 * durable execution's `durable:` + ARN, with the payload hash, still fit in 512 bytes.
 */
const UNSEEN_ATTRIBUTES_BYTES = 512;

/**
 * Upper estimate of a COMPLETED record's size with its encoded `result` (numbers at their widest), so an oversized
 * result is an `ItemTooLargeError` before the write, not a `ValidationException`.
 */
export function completedSizeEstimate(id: string, token: string, result: Readonly<Record<string, unknown>>): number {
  const widest = Number.MAX_SAFE_INTEGER;
  return (
    itemSize({
      id,
      status: 'IN_PROGRESS',
      owner: token,
      expiresAt: widest,
      attempts: widest,
      claimedAt: widest,
      completedAt: widest,
      result,
    }) + UNSEEN_ATTRIBUTES_BYTES
  );
}

/**
 * How a stored result is kept: its JSON text in a map, `{ j: text }`, or `{}` for `undefined`. JSON is what a caller
 * of the Lambda would have received; as text it is free of DynamoDB's limits on numbers (range, 38 digits) and
 * nesting (32 levels), and replays exactly, `undefined` kept apart from `null`.
 *
 * @throws UnstorableResultError when the result is not JSON-serialisable (a BigInt, a cycle).
 */
export function encodeResult(value: unknown): Record<string, unknown> {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new UnstorableResultError(`The handler's result cannot be stored as JSON: ${(err as Error).message}`, { cause: err });
  }
  return text === undefined ? {} : { j: text };
}

/** The inverse of {@link encodeResult}. */
export function decodeResult(stored: unknown): unknown {
  if (stored === null || typeof stored !== 'object') return undefined;
  const text = (stored as Record<string, unknown>)['j'];
  return typeof text === 'string' ? (JSON.parse(text) as unknown) : undefined;
}

/**
 * A DocumentClient built with `unmarshallOptions.wrapNumbers` hands numbers
 * back as `NumberValue` objects (or bigints): turn the record's own numeric
 * attributes back into numbers. The stored result is left as it came.
 */
function withPlainNumbers(item: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const plain: Record<string, unknown> = { ...item };
  for (const name of ['expiresAt', 'attempts', ...OPTIONAL_NUMBERS]) {
    const v = plain[name];
    const text = typeof v === 'number' ? undefined : numericText(v);
    if (text !== undefined) plain[name] = Number(text);
  }
  return plain;
}
