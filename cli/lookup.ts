/**
 * Finding one record from what an operator knows: the consumer and the
 * business key (stored as it is or hashed, tried both ways unless told), or
 * the record id itself (what `stale` prints).
 */
import { MAX_KEY_BYTES, recordId } from '../src/engine/keys.js';
import type { IdempotencyRecord } from '../src/engine/record.js';
import type { DynamoDBIdempotencyStore } from '../src/stores/dynamodb/store.js';
import { stringFlag, UsageError, type Flags } from './args.js';

/** How the id was formed: the key as it is, its SHA-256 (`hashKeys`), or given as an id. */
export type KeyForm = 'plain' | 'hashed' | 'id';

/** A candidate record id and how it was formed. */
export interface Candidate {
  readonly id: string;
  readonly form: KeyForm;
}

/** What a lookup found. */
export type Lookup =
  | { readonly kind: 'found'; readonly id: string; readonly form: KeyForm; readonly record: IdempotencyRecord }
  | { readonly kind: 'not-found'; readonly tried: readonly Candidate[] }
  | { readonly kind: 'ambiguous'; readonly found: readonly Candidate[] };

/** The flags that select a record. */
export const TARGET_OPTIONS = {
  consumer: { type: 'string' },
  key: { type: 'string' },
  id: { type: 'string' },
  'hash-keys': { type: 'boolean' },
  'plain-keys': { type: 'boolean' },
} as const;

/**
 * The ids to try for the flags given.
 * @throws UsageError for a missing or contradictory selection.
 */
export function candidates(flags: Flags): Candidate[] {
  const id = stringFlag(flags, 'id');
  const hashed = flags['hash-keys'] === true;
  const plain = flags['plain-keys'] === true;
  if (hashed && plain) throw new UsageError('--hash-keys and --plain-keys exclude each other.');
  if (id !== undefined) {
    if (flags['consumer'] !== undefined || flags['key'] !== undefined)
      throw new UsageError('give either --id or --consumer with --key, not both.');
    return [{ id, form: 'id' }];
  }
  const consumer = stringFlag(flags, 'consumer', true);
  const key = stringFlag(flags, 'key', true);
  // A key over the plain-key limit can only have been stored hashed.
  const fitsPlain = Buffer.byteLength(key) <= MAX_KEY_BYTES;
  if (plain && !fitsPlain)
    throw new UsageError(`--key is longer than ${MAX_KEY_BYTES} bytes, so it can only be stored hashed; drop --plain-keys.`);
  const out: Candidate[] = [];
  if (!hashed && fitsPlain) out.push({ id: recordId(consumer, key, false), form: 'plain' });
  if (!plain) out.push({ id: recordId(consumer, key, true), form: 'hashed' });
  return out;
}

/**
 * Reads every candidate (strongly consistent, in parallel) and says which matched.
 */
export async function lookup(store: DynamoDBIdempotencyStore, tried: readonly Candidate[]): Promise<Lookup> {
  const records = await Promise.all(tried.map(async (c) => ({ ...c, record: await store.get(c.id) })));
  const hits = records.flatMap((r) => (r.record === undefined ? [] : [{ ...r, record: r.record }]));
  const [hit] = hits;
  if (hit === undefined) return { kind: 'not-found', tried };
  if (hits.length > 1) return { kind: 'ambiguous', found: hits.map(({ id, form }) => ({ id, form })) };
  return { kind: 'found', id: hit.id, form: hit.form, record: hit.record };
}
