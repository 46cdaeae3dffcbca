/**
 * Helpers for the Redis tests: a node-redis client on the redis-server the
 * global setup started (or on one a test started itself), the one-line
 * adapter to `RedisConnection`, a key prefix of its own per test so tests
 * never share keys, and connections that count, fail or hang.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { inject } from 'vitest';
import type { RedisConnection } from '../../../src/stores/redis/connection.js';

function nodeRedisClient(url: string, offlineQueue: boolean) {
  return createClient({ url, disableOfflineQueue: !offlineQueue, socket: { reconnectStrategy: () => 20, connectTimeout: 1000 } });
}

export type NodeRedisClient = ReturnType<typeof nodeRedisClient>;

/** A connected client and its `RedisConnection`. */
export interface TestRedis {
  readonly client: NodeRedisClient;
  readonly connection: RedisConnection;
  /** A key prefix no other test uses. */
  readonly prefix: string;
  close(): Promise<void>;
}

/**
 * Connects to `url` (default: the global setup's server). `disableOfflineQueue`
 * makes commands fail at once while disconnected, as docs/redis.md advises.
 */
export async function testRedis(url: string = inject('redisUrl'), options: { offlineQueue?: boolean } = {}): Promise<TestRedis> {
  const client = nodeRedisClient(url, options.offlineQueue === true);
  client.on('error', () => {}); // reconnects are expected in the outage tests; the commands report their own errors
  await client.connect();
  return {
    client,
    connection: { sendCommand: (args) => client.sendCommand([...args]) },
    prefix: `t-${randomUUID().slice(0, 8)}:`,
    close: async () => {
      if (client.isOpen) client.destroy();
    },
  };
}

/** A connection that records every command (name and key) before passing it on. */
export function countingConnection(inner: RedisConnection): RedisConnection & { readonly commands: string[] } {
  const commands: string[] = [];
  return {
    commands,
    sendCommand: (args, key) => {
      commands.push(args[0] ?? '');
      return inner.sendCommand(args, key);
    },
  };
}

/** A connection whose every command fails, as with a server that is down. */
export const failingConnection: RedisConnection = {
  sendCommand: () => Promise.reject(new Error('ECONNREFUSED (test)')),
};

/** A connection whose commands never answer, as with a server that hangs. */
export const hangingConnection: RedisConnection = {
  sendCommand: () => new Promise(() => {}),
};
