/**
 * Records in Redis: the store keeps an `IdempotencyRecord` as a hash with
 * the same field names as the DynamoDB item (every value a string); the
 * filter keeps a marker string. Both convert here.
 */
import { EffectivelyOnceError } from '../../engine/errors.js';
import { isPlainObject } from '../../engine/options.js';
import type { IdempotencyRecord, IdempotencyStatus } from '../../engine/record.js';
import { toRecord } from '../dynamodb/records.js';

const STATUSES: ReadonlySet<string> = new Set<IdempotencyStatus>(['IN_PROGRESS', 'COMPLETED', 'FAILED']);
const NUMBER_FIELDS: ReadonlySet<string> = new Set(['expiresAt', 'attempts', 'leaseUntil', 'claimedAt', 'completedAt']);

function numberOf(text: string): number | undefined {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * A store hash (HGETALL's fields) as a record, read by the DynamoDB store's `toRecord` once its numbers are numbers
 * and its result is in the `{ j }` map; `undefined` when the key holds no fields (absent or expired).
 * @throws EffectivelyOnceError when the hash is not an idempotency record.
 */
export function recordFromFields(id: string, fields: ReadonlyMap<string, string>): IdempotencyRecord | undefined {
  if (fields.size === 0) return undefined;
  const item: Record<string, unknown> = {};
  for (const [name, text] of fields) item[name] = name === 'result' ? { j: text } : NUMBER_FIELDS.has(name) ? numberOf(text) : text;
  try {
    return toRecord({ ...item, id });
  } catch (err) {
    if (!(err instanceof EffectivelyOnceError)) throw err; // a stored result that is not JSON fails as it is
    throw new EffectivelyOnceError(`The Redis hash of ${JSON.stringify(id)} is not an idempotency record.`);
  }
}

/**
 * A filter marker: a header line the filter's Lua scripts read
 * (`<status> <expiresAt> <owner>`) and the whole record as JSON, which is
 * what a duplicate is answered with (payload hash, stored result).
 */
export function markerText(record: IdempotencyRecord): string {
  return `${record.status} ${record.expiresAt} ${record.owner ?? ''}\n${JSON.stringify(record)}`;
}

/** The Redis key of a filter's marker: its `keyPrefix` and the record id. The operator CLI's `forget` removes it by the same rule. */
export function markerKey(keyPrefix: string, id: string): string {
  return `${keyPrefix}${id}`;
}

/** The record in a marker; `undefined` when the text is not a marker (it is then ignored, as a miss). */
export function recordFromMarker(id: string, text: string): IdempotencyRecord | undefined {
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(newline + 1));
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed)) return undefined;
  const { id: markedId, status, expiresAt, attempts } = parsed;
  const wellFormed = markedId === id && STATUSES.has(status as string) && typeof expiresAt === 'number' && typeof attempts === 'number';
  return wellFormed ? (parsed as unknown as IdempotencyRecord) : undefined;
}
