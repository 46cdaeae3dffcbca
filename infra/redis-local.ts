/**
 * redis-server launcher for the test setup and the Redis bench, built like
 * `dynamodb-local.ts`: a free port, no persistence (`--save '' --appendonly
 * no`, so a restart loses every key, which the chaos tests rely on), ready
 * once it answers PING, stopped by PID. When `REDIS_URL` is set, nothing is
 * started and that server is used.
 *
 * No Redis client is imported here: PING goes over a plain socket, so the
 * launcher works whichever client the tests use.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './dynamodb-local.js';

/** A running (or borrowed) redis-server. */
export interface RedisLocalHandle {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** PID of the process we started; `undefined` when borrowed from `REDIS_URL`. */
  readonly pid: number | undefined;
  /** Stops the process we started with SIGTERM (no-op for a borrowed server). */
  stop(): Promise<void>;
  /** Kills the process we started with SIGKILL, as a crash would (no-op for a borrowed server). */
  kill(): Promise<void>;
}

/** Options of {@link startRedisLocal}. */
export interface StartRedisLocalOptions {
  /** Listen on this port (to restart a killed server where its clients reconnect). Default: a free port. */
  readonly port?: number;
  /** Ignore `REDIS_URL` and always start a fresh process. */
  readonly ignoreEnv?: boolean;
  /** Give up waiting for PONG after this long. Default 10 s. */
  readonly readyTimeoutMs?: number;
}

/** Raised when redis-server cannot be started; the message says what to install or set. */
export class RedisLocalStartError extends Error {
  override readonly name = 'RedisLocalStartError';
}

const BINARY = 'redis-server';

function assertBinary(): void {
  const probe = spawnSync(BINARY, ['--version'], { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new RedisLocalStartError(
      'redis-server was not found on PATH. Install it (as root: `apt-get install -y redis-server`), ' +
        'or set REDIS_URL=redis://host:port to use a Redis or Valkey server that is already running.',
    );
  }
}

/** Sends PING over a plain socket; resolves true on `+PONG`. */
export function ping(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/** Resolves once the server at host:port answers PING, or rejects after `timeoutMs`. */
export async function waitForRedis(host: string, port: number, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child !== undefined && child.exitCode !== null) {
      throw new RedisLocalStartError(`redis-server exited early with code ${child.exitCode}.`);
    }
    if (await ping(host, port)) return;
    if (Date.now() > deadline) throw new RedisLocalStartError(`Redis at ${host}:${port} did not answer PING within ${timeoutMs} ms.`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function borrowed(url: string): RedisLocalHandle {
  const parsed = new URL(url);
  return { url, port: Number(parsed.port || 6379), pid: undefined, stop: async () => {}, kill: async () => {} };
}

/**
 * Starts redis-server (no persistence) on a free port, or borrows `REDIS_URL`.
 *
 * @example
 * ```ts
 * const redis = await startRedisLocal();
 * try { console.log(redis.url); } finally { await redis.stop(); }
 * ```
 */
export async function startRedisLocal(options: StartRedisLocalOptions = {}): Promise<RedisLocalHandle> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
  const fromEnv = process.env['REDIS_URL'];
  if (fromEnv !== undefined && fromEnv !== '' && options.ignoreEnv !== true) {
    const handle = borrowed(fromEnv);
    await waitForRedis(new URL(fromEnv).hostname, handle.port, readyTimeoutMs);
    return handle;
  }
  assertBinary();
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'];
  const child = spawn(BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const handle: RedisLocalHandle = {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    stop: () => stopChild(child, 'SIGTERM'),
    kill: () => stopChild(child, 'SIGKILL'),
  };
  try {
    await waitForRedis('127.0.0.1', port, readyTimeoutMs, child);
  } catch (err) {
    await handle.kill();
    throw new RedisLocalStartError(`${(err as Error).message}\n${stderr}`.trim(), { cause: err });
  }
  return handle;
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}
