/**
 * redis-server launcher for the test setup and the Redis bench, built like
 * `dynamodb-local.ts`: a free port, no persistence (`--save '' --appendonly
 * no`, so a restart loses every key, which the chaos tests rely on), ready
 * once it answers PING, stopped by PID. When `REDIS_URL` is set, nothing is
 * started and that server is used. A missing redis-server is installed from
 * Debian's packages where that is safe (root, apt-get), so a fresh machine
 * needs nothing by hand; elsewhere the error says what to install.
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
  /** Install Debian's redis-server when it is missing and the machine allows it ({@link redisInstallPlan}). Default true. */
  readonly install?: boolean;
  /** Give up waiting for PONG after this long. Default 10 s. */
  readonly readyTimeoutMs?: number;
}

/** Raised when redis-server cannot be started; the message says what to install or set. */
export class RedisLocalStartError extends Error {
  override readonly name = 'RedisLocalStartError';
}

const BINARY = 'redis-server';
const INSTALL_HINT =
  'Install it (as root: `apt-get install -y redis-server`), ' +
  'or set REDIS_URL=redis://host:port to use a Redis or Valkey server that is already running.';

function binaryOnPath(): boolean {
  const probe = spawnSync(BINARY, ['--version'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

/** What the launcher may do about a missing redis-server on this machine: install it with apt-get, or only explain. */
export type RedisInstallPlan = { readonly install: true } | { readonly install: false; readonly why: string };

/**
 * Installing is allowed only where it cannot surprise anyone: as root (CI and the project's machines run as
 * root; a developer's own account never gets an `apt-get` it did not ask for) and where `apt-get` exists.
 */
export function redisInstallPlan(machine: { readonly uid: number | undefined; readonly hasAptGet: boolean }): RedisInstallPlan {
  if (machine.uid !== 0) return { install: false, why: 'not running as root' };
  if (!machine.hasAptGet) return { install: false, why: 'apt-get is not on PATH' };
  return { install: true };
}

function run(command: string, args: readonly string[]): Promise<{ readonly ok: boolean; readonly output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('error', (err) => resolve({ ok: false, output: `${output}\n${err.message}` }));
    child.on('close', (code) => resolve({ ok: code === 0, output }));
  });
}

/** The check-and-install under way in this process: callers at the same moment share it (one line, one apt-get). */
let ensuring: Promise<void> | undefined;

/**
 * Makes sure redis-server is on PATH. Missing, it is installed from Debian's packages when the plan allows
 * (one line on stderr says so, once however many callers ask at the same moment; a later caller finds it on
 * PATH; the package lists are refreshed only if the first attempt fails), and otherwise the error says what
 * to install and that `REDIS_URL` can name a running server.
 * Asynchronous, so DynamoDB Local keeps starting beside it in the test setup.
 */
export function ensureRedisServer(): Promise<void> {
  ensuring ??= installIfMissing().finally(() => {
    ensuring = undefined;
  });
  return ensuring;
}

async function installIfMissing(): Promise<void> {
  if (binaryOnPath()) return;
  const hasAptGet = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).error === undefined;
  const plan = redisInstallPlan({ uid: process.getuid?.(), hasAptGet });
  if (!plan.install) {
    throw new RedisLocalStartError(`redis-server was not found on PATH and was not installed (${plan.why}). ${INSTALL_HINT}`);
  }
  process.stderr.write("redis-server not found on PATH: installing Debian's redis-server (apt-get install -y redis-server)\n");
  const install = ['install', '-y', '-q', '-o', 'DPkg::Lock::Timeout=300', BINARY];
  let result = await run('apt-get', install);
  if (!result.ok) {
    const update = await run('apt-get', ['update', '-q', '-o', 'DPkg::Lock::Timeout=300']);
    result = update.ok ? await run('apt-get', install) : update;
  }
  if (!result.ok || !binaryOnPath()) {
    throw new RedisLocalStartError(`Installing redis-server with apt-get failed. ${INSTALL_HINT}\n${result.output.trim()}`);
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
  if (options.install !== false) await ensureRedisServer();
  else if (!binaryOnPath()) throw new RedisLocalStartError(`redis-server was not found on PATH. ${INSTALL_HINT}`);
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
