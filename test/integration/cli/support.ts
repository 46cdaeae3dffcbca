/**
 * Helpers for the CLI tests: an in-process `CliIO` with scripted stdin and
 * captured output, the environment that points the CLI at the test
 * DynamoDB Local, and a store to write the records the CLI then reads.
 */
import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { inject } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../infra/dynamodb-local.js';
import type { CliIO } from '../../../cli/io.js';
import { main } from '../../../cli/main.js';
import { DynamoDBIdempotencyStore } from '../../../src/stores/dynamodb/store.js';
import type { Clock } from '../../../src/engine/clock.js';
import { testDynamo } from '../../support/dynamodb.js';

/** Environment for a CLI run against the test DynamoDB Local. */
export function localEnv(): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_REGION: LOCAL_REGION,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
  };
}

export interface RunOptions {
  /** Lines typed on stdin. */
  readonly stdin?: readonly string[];
  /** Whether stdin is a terminal. Default false (as in CI). */
  readonly tty?: boolean;
  readonly env?: Record<string, string>;
  readonly now?: number;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `main(argv)` in-process and captures what it printed. */
export async function runCli(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const now = options.now;
  const io: CliIO = {
    stdin: Readable.from((options.stdin ?? []).map((l) => `${l}\n`)),
    stdinIsTTY: options.tty ?? false,
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: options.env ?? localEnv(),
    now: () => now ?? Date.now(),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** A store writing to `table` on the test DynamoDB Local, with `trackInflight` so `stale` sees its claims. */
export function writer(table: string, clock: Clock, hashKeys = false): DynamoDBIdempotencyStore {
  const { doc } = testDynamo();
  return new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock, hashKeys, trackInflight: true });
}

/** Completes a fresh claim of `key` for `consumer`. */
export async function completed(store: DynamoDBIdempotencyStore, consumer: string, key: string): Promise<void> {
  const claim = await store.claim({ consumer, key, leaseMs: 30_000, messageId: `m-${key}` });
  if (claim.kind !== 'claimed') throw new Error(`expected a fresh claim of ${key}, got ${claim.kind}`);
  const done = await store.complete({ id: claim.id, token: claim.token, storeResult: true, result: { receipt: `r-${key}` } });
  if (done.kind !== 'ok') throw new Error(`could not complete ${key}`);
}

/** A port nothing listens on: bound once by us, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
