/**
 * `forget`'s reach into a Redis filter (`withRedisFilter`). The filter keeps
 * one marker per record id that answers its key in every container for the
 * rest of the record's retention, so deleting the DynamoDB record alone would
 * not make the key run again. `redis` (node-redis) is an optional peer
 * dependency: it is imported only when a Redis URL is given.
 */
import type { IdempotencyRecord } from '../src/engine/record.js';
import { replyText, type RedisConnection } from '../src/stores/redis/connection.js';
import { markerKey, recordFromMarker } from '../src/stores/redis/fields.js';
import { redisFilterDefaults } from '../src/stores/redis/options.js';
import { nonEmpty, stringFlag, UsageError, type Flags } from './args.js';

/** The flags that point `forget` at the filter's Redis. */
export const REDIS_OPTIONS = {
  'redis-url': { type: 'string' },
  'redis-key-prefix': { type: 'string' },
  'no-redis': { type: 'boolean' },
} as const;

/** A Redis URL to remove markers from, and which of the two ways named it. */
export interface RedisTarget {
  readonly url: string;
  readonly from: '--redis-url' | 'REDIS_URL';
  /** The filter's `keyPrefix` (`--redis-key-prefix`, default `'eo:m:'`). */
  readonly keyPrefix: string;
}

/** Where the filter's markers are. */
export interface RedisArgs {
  /** The filter's `keyPrefix`, also when no URL is given (for the warning's `DEL` command). */
  readonly keyPrefix: string;
  /** From `--redis-url`, else `REDIS_URL`; `undefined` when neither is given, or with `--no-redis`. */
  readonly target: RedisTarget | undefined;
  /** `--no-redis`: no filter is in front of the table, so no marker can answer a key (no warning, no hint). */
  readonly none: boolean;
}

/**
 * The Redis URL and marker prefix, from flags first, then `REDIS_URL` (which `--no-redis` overrides, as any flag
 * overrides its variable).
 * @throws UsageError when `--no-redis` and `--redis-url` are both given.
 */
export function redisArgs(flags: Flags, env: Readonly<Record<string, string | undefined>>): RedisArgs {
  const prefix = flags['redis-key-prefix'];
  // An empty prefix is a valid filter option, so unlike other flags it may be given empty.
  const keyPrefix = typeof prefix === 'string' ? prefix : redisFilterDefaults.keyPrefix;
  const flag = stringFlag(flags, 'redis-url');
  if (flags['no-redis'] === true) {
    if (flag !== undefined)
      throw new UsageError('--no-redis says no Redis filter is in front of the table, --redis-url names one: give one of them.');
    return { keyPrefix, target: undefined, none: true };
  }
  const url = flag ?? nonEmpty(env['REDIS_URL']);
  const target =
    url === undefined ? undefined : { url, from: flag === undefined ? ('REDIS_URL' as const) : ('--redis-url' as const), keyPrefix };
  return { keyPrefix, target, none: false };
}

/**
 * `url` with its password replaced by `***`, for messages and the audit line.
 */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    return '(a URL that does not parse)';
  }
}

/** A filter marker found in Redis. */
export interface FoundMarker {
  readonly key: string;
  /** The record the marker holds (what the filter answers with). */
  readonly record: IdempotencyRecord;
}

/** `forget`'s connection to the filter's Redis. */
export interface MarkerRedis {
  /** The URL, password redacted. */
  readonly url: string;
  readonly keyPrefix: string;
  /** The marker of record `id`, if the filter holds one. */
  find(id: string): Promise<FoundMarker | undefined>;
  /** Deletes the marker of record `id`; what it held, `undefined` when there was none. */
  remove(id: string): Promise<FoundMarker | undefined>;
  close(): Promise<void>;
}

/** Redis could not be used: no `redis` package, a bad URL, nothing listening, refused credentials. */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

type RedisModule = Pick<typeof import('redis'), 'createClient'>;

/** Loads node-redis; only called with a Redis URL, so DynamoDB-only users need not install it. */
export const loadRedis = (): Promise<RedisModule> => import('redis');

function errorCode(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** `err` as a Redis failure: what failed, the socket code when there is one, the client's message; `err` kept as `cause`. */
function failure(what: string, err: unknown): RedisUnavailableError {
  const code = errorCode(err);
  const message = err instanceof Error ? err.message : String(err);
  return new RedisUnavailableError(`${what}${code === undefined ? '' : ` (${code})`}: ${message}`, { cause: err });
}

async function connected(args: RedisTarget, load: () => Promise<RedisModule>) {
  let redis: RedisModule;
  try {
    redis = await load();
  } catch (err) {
    const hint = errorCode(err) === 'ERR_MODULE_NOT_FOUND' ? ' It is an optional peer dependency: npm install redis' : '';
    throw new RedisUnavailableError(
      `removing the filter's marker (${args.from} is given) needs the "redis" package (node-redis 5 or 6), which did not load.${hint} (${String(err)})`,
      { cause: err },
    );
  }
  try {
    // No reconnects and no offline queue: a CLI should fail at once, not wait for a server.
    const client = redis.createClient({
      url: args.url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 5000, reconnectStrategy: false },
    });
    client.on('error', () => {}); // connect() and each command reject with the error themselves
    return await client.connect();
  } catch (err) {
    throw failure(`cannot use Redis at ${redactedUrl(args.url)} (${args.from})`, err);
  }
}

// A key the filter never wrote (a hash of RedisIdempotencyStore under a wrong prefix) is not a marker.
async function read(connection: RedisConnection, id: string, key: string): Promise<FoundMarker | undefined> {
  try {
    const text = replyText(await connection.sendCommand(['GET', key], key));
    const record = text === undefined ? undefined : recordFromMarker(id, text);
    return record === undefined ? undefined : { key, record };
  } catch (err) {
    const cause = err instanceof Error ? err.cause : undefined;
    if (cause instanceof Error && cause.message.startsWith('WRONGTYPE')) return undefined;
    throw err;
  }
}

/**
 * Connects to the filter's Redis.
 * @throws RedisUnavailableError when `redis` is not installed or the server cannot be used.
 */
export async function openMarkerRedis(args: RedisTarget, load = loadRedis): Promise<MarkerRedis> {
  const client = await connected(args, load);
  const url = redactedUrl(args.url);
  const connection: RedisConnection = {
    // Said as a Redis failure, so that a dropped connection is never taken for DynamoDB's.
    sendCommand: (command) =>
      client.sendCommand([...command]).catch((err: unknown) => {
        throw failure(`Redis at ${url}`, err);
      }),
  };
  const find = (id: string) => read(connection, id, markerKey(args.keyPrefix, id));
  return {
    url,
    keyPrefix: args.keyPrefix,
    find,
    remove: async (id) => {
      const found = await find(id);
      // Unconditional: a marker written since the GET is a cache entry too, and without it the filter asks DynamoDB.
      if (found !== undefined) await connection.sendCommand(['DEL', found.key], found.key);
      return found;
    },
    close: async () => {
      if (client.isOpen) client.destroy();
    },
  };
}

/** Until when the filter's marker of `record` can still answer its key (epoch ms); `undefined` when it cannot. */
export function markerLiveUntil(record: IdempotencyRecord, now: number): number | undefined {
  const retention = record.expiresAt * 1000;
  const until =
    record.status === 'COMPLETED'
      ? retention
      : record.status === 'IN_PROGRESS' && record.leaseUntil !== undefined
        ? Math.min(record.leaseUntil, retention)
        : undefined; // the filter keeps no marker of a FAILED record
  return until !== undefined && until > now ? until : undefined;
}

/** `text` as one shell word (for the `redis-cli` commands `forget` prints). */
export function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The warning `forget` prints when it deleted `record` without a Redis URL:
 * a filter's marker may still answer the key, until when, and how to remove it.
 * `undefined` when no marker can be live any more.
 */
export function markerWarning(record: IdempotencyRecord, keyPrefix: string, now: number): string | undefined {
  const until = markerLiveUntil(record, now);
  if (until === undefined) return undefined;
  const key = markerKey(keyPrefix, record.id);
  const answer = record.status === 'COMPLETED' ? 'a duplicate (acknowledged without running the handler)' : 'in progress (retried later)';
  return (
    `warning: if this table's consumers use withRedisFilter, its marker ${key} in Redis still answers this key as ` +
    `${answer} in every container until ${new Date(until).toISOString()}. Remove it too: run forget again with ` +
    `--redis-url URL (or REDIS_URL; add --redis-key-prefix P if the filter has its own keyPrefix), or ` +
    `redis-cli -u URL DEL ${shellQuoted(key)}. No filter in front of this table: pass --no-redis, and forget says nothing of markers.\n`
  );
}
