/**
 * The one thing the Redis store and the Redis filter need from a client:
 * send a command, get the raw reply. Taking this small interface instead of
 * a client type keeps `redis` (node-redis) or `iovalkey` an optional peer
 * dependency: nothing here imports either, and a DynamoDB-only handler
 * bundles neither.
 */
import { createHash } from 'node:crypto';

/**
 * A connection to Redis or Valkey, as the Redis store and filter use it (their
 * `redis` option; named `RedisIdempotencyStoreOptions['redis']` outside).
 * `args` is the command and its arguments as strings; `key` is the one key
 * the command touches (a cluster client routes on it; others ignore it).
 * Resolve with the raw reply; reject with the server's error (its message
 * starting with the error code, e.g. `NOSCRIPT ...`).
 *
 * One-line adapters (tested: node-redis 6.3.1 against redis-server 7.0.15):
 * - node-redis: `{ sendCommand: (args) => client.sendCommand([...args]) }`
 * - node-redis cluster: `{ sendCommand: (args, key) => cluster.sendCommand(key, false, [...args]) }`
 * - iovalkey / ioredis: `{ sendCommand: ([name, ...rest]) => valkey.call(name ?? '', ...rest) }`
 */
export interface RedisConnection {
  sendCommand(args: readonly string[], key: string): Promise<unknown>;
}

/** A Lua script with its SHA-1, sent by EVALSHA and loaded with EVAL the first time a server lacks it. */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /**
   * Runs the script on one key. EVALSHA first (the usual case sends only the
   * hash); on NOSCRIPT (a new or restarted server, SCRIPT FLUSH) EVAL, which
   * also caches it for the next call. Both are atomic on the server.
   */
  async run(connection: RedisConnection, key: string, args: readonly string[]): Promise<unknown> {
    try {
      return await connection.sendCommand(['EVALSHA', this.sha, '1', key, ...args], key);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
      return connection.sendCommand(['EVAL', this.source, '1', key, ...args], key);
    }
  }
}

/** A bulk-string reply as text (clients hand back strings or Buffers); `undefined` for nil. */
export function replyText(reply: unknown): string | undefined {
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('utf8');
  return undefined;
}

/** A flat `[field, value, field, value, ...]` reply (HGETALL inside a script) as a map of strings. */
export function replyFields(reply: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (!Array.isArray(reply)) return fields;
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const name = replyText(reply[i]);
    const value = replyText(reply[i + 1]);
    if (name !== undefined && value !== undefined) fields.set(name, value);
  }
  return fields;
}
