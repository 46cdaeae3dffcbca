/**
 * infra/redis-local.ts: starts a redis-server on a free port, answers PING,
 * stops or kills it by PID, restarts it on the same port empty, and says
 * what to install when the binary is missing and cannot be installed.
 */
import { describe, expect, it } from 'vitest';
import { ping, RedisLocalStartError, startRedisLocal } from '../../../infra/redis-local.js';
import { testRedis } from './support.js';

describe('startRedisLocal', () => {
  it('starts, is killed, and restarts on the same port without the old data', async () => {
    const server = await startRedisLocal({ ignoreEnv: true });
    try {
      expect(server.pid).toBeGreaterThan(0);
      expect(await ping('127.0.0.1', server.port)).toBe(true);
      const redis = await testRedis(server.url);
      await redis.client.set('k', 'v');
      await redis.close();
      await server.kill();
      expect(await ping('127.0.0.1', server.port)).toBe(false);
      const again = await startRedisLocal({ ignoreEnv: true, port: server.port });
      try {
        const fresh = await testRedis(again.url);
        expect(await fresh.client.get('k')).toBeNull();
        await fresh.close();
      } finally {
        await again.stop();
      }
    } finally {
      await server.stop();
    }
  });

  it('without redis-server on PATH: a RedisLocalStartError that says how to install it or use REDIS_URL', async () => {
    const path = process.env['PATH'];
    process.env['PATH'] = '/nonexistent';
    try {
      const started = startRedisLocal({ ignoreEnv: true });
      await expect(started).rejects.toBeInstanceOf(RedisLocalStartError);
      // As root the launcher would install it, but with PATH emptied there is no apt-get either: it must explain.
      await expect(started).rejects.toThrow(
        /not installed \((not running as root|apt-get is not on PATH)\).*apt-get install -y redis-server.*REDIS_URL/s,
      );
    } finally {
      process.env['PATH'] = path;
    }
  });
});
