/**
 * Options of `DynamoDBClaimStore` and `DynamoDBIdempotencyStore`: their types,
 * their defaults (in one object) and their validation. Checked once, in the constructor, so a typo
 * fails at cold start with a `TypeError` naming the option instead of at the
 * first message.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock, type Clock } from '../../engine/clock.js';
import { definedOnly, hasMethods, is, isPlainObject, resolveOptions, type RulesOf } from '../../engine/options.js';
import { storeJsonLogger, type StoreLogger } from './warnings.js';

/** What `release` does with a failed claim. */
export type ReleaseMode = 'delete' | 'mark-failed';

/** How a FAILED record keeps the handler's error: its text, or its name and a SHA-256 of its message. */
export type ErrorMessageMode = 'hash' | 'keep';

/** Options of `DynamoDBClaimStore`, the claim half of the DynamoDB store. */
export interface DynamoDBClaimStoreOptions {
  /** The DocumentClient to send every request with (injected, never created here). */
  readonly client: DynamoDBDocumentClient;
  /** Name of the idempotency table (key `id`, TTL attribute `expiresAt`, see `infra/tables.json`). */
  readonly tableName: string;
  /** How long a COMPLETED record keeps deduplicating, ms. Default 24 h. */
  readonly retentionMs?: number;
  /** Store SHA-256 of the business key instead of the key itself (keys may be personal data; lifts the 1024-byte key limit). Default false. */
  readonly hashKeys?: boolean;
  /**
   * `'delete'` (default) removes a failed claim; `'mark-failed'` keeps it as
   * FAILED with the attempt count and last error, for teams that trace every
   * attempt. Both leave the key claimable by the retry.
   */
  readonly release?: ReleaseMode;
  /**
   * What a FAILED record (`release: 'mark-failed'`) keeps of the handler's
   * error in `lastError`. `'keep'`: `"Name: message"`, cut to 1 KB.
   * `'hash'`: the name and a SHA-256 of the message,
   * `"Name (message sha256:<hex>)"`: error messages often hold the key or
   * other personal data, and the hash still matches the message in your logs.
   * Default `'hash'` when `hashKeys` is on, `'keep'` otherwise.
   *
   * @example
   * ```ts
   * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
   * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
   * import { DynamoDBClaimStore } from 'effectively-once';
   * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
   * // Keys are e-mail addresses: hashed, and so are the messages of the errors kept on FAILED records.
   * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency', hashKeys: true, release: 'mark-failed' });
   * // Opt in to the text when you know your errors never carry personal data.
   * const verbose = new DynamoDBClaimStore({ client, tableName: 'idempotency', hashKeys: true, release: 'mark-failed', errorMessages: 'keep' });
   * ```
   */
  readonly errorMessages?: ErrorMessageMode;
  /** Warm-container cache of COMPLETED records, per store instance. Default `false` (off). */
  readonly cache?: false | { readonly maxEntries: number };
  /** Source of time (epoch ms). Default the system clock; inject one in tests. */
  readonly clock?: Clock;
  /**
   * Put IN_PROGRESS claims in the sparse `inflight-by-lease` index so
   * `staleClaims()` (the sweeper) can find crashed consumers. Costs one index
   * write on claim and one on completion; default `false`. Turn it on in the
   * stores of the consumers you want swept.
   */
  readonly trackInflight?: boolean;
  /**
   * Told once per store instance when the store turns a batched request off for the rest of its life: the role
   * was refused `dynamodb:PartiQLInsert`, `dynamodb:PartiQLUpdate` or `dynamodb:BatchGetItem` (the line names the
   * action), or the table refused `RETURNING` in a batched completion. Records still succeed, one request each.
   * Default: one JSON line at WARN on stdout, as the middlewares log; `false` for none.
   */
  readonly logger?: StoreLogger | false;
}

/**
 * Options of `DynamoDBIdempotencyStore`: the claim store's (the same table),
 * for a store that also commits transactions and finds stale claims.
 */
// An interface, not an alias: the API report and editors then show the name, not its expansion.
export interface DynamoDBIdempotencyStoreOptions extends DynamoDBClaimStoreOptions {}

/** Options after defaults are applied: every one set. */
export type ResolvedStoreOptions = Required<DynamoDBClaimStoreOptions>;

/** Defaults of every optional store option. */
export const defaults = Object.freeze({
  retentionMs: 24 * 60 * 60 * 1000,
  hashKeys: false,
  release: 'delete' as ReleaseMode,
  /** With `hashKeys` on, the default is `'hash'` instead (see {@link resolveStoreOptions}). */
  errorMessages: 'keep' as ErrorMessageMode,
  cache: false as const,
  clock: systemClock,
  trackInflight: false,
  logger: storeJsonLogger as StoreLogger | false,
});

function isCacheOption(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  const keys = Object.keys(v);
  const max = v['maxEntries'];
  return keys.length === 1 && keys[0] === 'maxEntries' && Number.isInteger(max) && (max as number) > 0;
}

const rules = {
  client: { ...hasMethods('a DynamoDBDocumentClient', 'send'), required: true },
  tableName: { ...is.nonEmptyString, required: true },
  retentionMs: is.retentionMs,
  hashKeys: is.boolean,
  release: is.oneOf('delete', 'mark-failed'),
  errorMessages: is.oneOf('hash', 'keep'),
  cache: { expected: 'false or { maxEntries: positive integer }', check: (v: unknown) => v === false || isCacheOption(v) },
  clock: is.clock,
  trackInflight: is.boolean,
  logger: { expected: 'a function or false', check: (v: unknown) => v === false || typeof v === 'function' },
} satisfies RulesOf<DynamoDBClaimStoreOptions>;

/** The classes that take these options: an error names the one the caller built. */
export type StoreClassName = 'DynamoDBClaimStore' | 'DynamoDBIdempotencyStore';

/**
 * Validates raw options and applies {@link defaults}; `errorMessages`
 * defaults to `'hash'` when `hashKeys` is on, so a store told to keep keys out
 * of the table keeps error messages out too.
 * @throws TypeError naming `owner` and the first unknown, missing or wrongly typed option.
 */
export function resolveStoreOptions(options: unknown, owner: StoreClassName): ResolvedStoreOptions {
  const given = options as DynamoDBClaimStoreOptions;
  const resolved = resolveOptions(owner, given, rules, defaults);
  // Defaulted after the merge: its default depends on another option.
  const errorMessages = definedOnly(given).errorMessages ?? (resolved.hashKeys ? 'hash' : defaults.errorMessages);
  return { ...resolved, errorMessages };
}
