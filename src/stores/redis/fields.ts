/**
 * Records in Redis: the store keeps an `IdempotencyRecord` as a hash with
 * the same field names as the DynamoDB item (every value a string); the
 * filter keeps a marker string. Both convert here.
 */
import { EffectivelyOnceError } from '../../engine/errors.js';
import type { IdempotencyRecord, IdempotencyStatus } from '../../engine/record.js';
import { decodeResult } from '../dynamodb/records.js';

const STATUSES: ReadonlySet<string> = new Set<IdempotencyStatus>(['IN_PROGRESS', 'COMPLETED', 'FAILED']);
const OPTIONAL_STRINGS = ['owner', 'payloadHash', 'messageId', 'lastError'] as const;
const OPTIONAL_NUMBERS = ['leaseUntil', 'claimedAt', 'completedAt'] as const;

function numberField(fields: ReadonlyMap<string, string>, name: string): number | undefined {
  const text = fields.get(name);
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * A store hash (HGETALL's fields) as a record; `undefined` when the key holds
 * no fields (absent or expired).
 * @throws EffectivelyOnceError when the hash is not an idempotency record.
 */
export function recordFromFields(id: string, fields: ReadonlyMap<string, string>): IdempotencyRecord | undefined {
  if (fields.size === 0) return undefined;
  const status = fields.get('status');
  const expiresAt = numberField(fields, 'expiresAt');
  if (status === undefined || !STATUSES.has(status) || expiresAt === undefined) {
    throw new EffectivelyOnceError(`The Redis hash of ${JSON.stringify(id)} is not an idempotency record.`);
  }
  const record: Record<string, unknown> = { id, status, expiresAt, attempts: numberField(fields, 'attempts') ?? 0 };
  for (const name of OPTIONAL_STRINGS) {
    const value = fields.get(name);
    if (value !== undefined) record[name] = value;
  }
  for (const name of OPTIONAL_NUMBERS) {
    const value = numberField(fields, name);
    if (value !== undefined) record[name] = value;
  }
  const result = fields.get('result');
  if (result !== undefined) record['result'] = decodeResult({ j: result });
  return record as unknown as IdempotencyRecord;
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
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const r = parsed as Record<string, unknown>;
  const wellFormed =
    r['id'] === id &&
    typeof r['status'] === 'string' &&
    STATUSES.has(r['status']) &&
    typeof r['expiresAt'] === 'number' &&
    typeof r['attempts'] === 'number';
  return wellFormed ? (parsed as IdempotencyRecord) : undefined;
}
