/**
 * The shipped DynamoDB Local kit: the table it creates (and the clear error
 * for a table that is not an idempotency table), and no orphan JVM when the
 * process that started it is interrupted or killed outright.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createIdempotencyTable, startDynamoDBLocal, TableSchemaMismatchError } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { alive, answers, until } from '../../support/processes.js';

const runner = fileURLToPath(new URL('./kit-runner.ts', import.meta.url));

describe('createIdempotencyTable', () => {
  it('creates the table once, accepts it again, and refuses a table with another key naming the difference', async () => {
    const { client } = testDynamo();
    const name = `kit-${randomUUID().slice(0, 8)}`;
    expect(await createIdempotencyTable(client, name, { stream: true })).toBe('created');
    expect(await createIdempotencyTable(client, name, { stream: true })).toBe('existed');
    const table = (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
    expect(table?.KeySchema).toEqual([{ AttributeName: 'id', KeyType: 'HASH' }]);
    expect(table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });

    const wrong = await freshTable(client, businessTable, 'kit-wrong'); // keyed by pk
    const err = await createIdempotencyTable(client, wrong, { stream: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TableSchemaMismatchError);
    expect((err as TableSchemaMismatchError).differences).toEqual([
      'key schema: expected id (HASH), found pk (HASH)',
      'index inflight-by-lease: missing',
      'stream: expected one, found none',
    ]);
    expect((err as Error).message).toContain(wrong);
  });

  it('called at the same moment on one name (several deploy scripts, test files), every call resolves, one of them "created"', async () => {
    const { client } = testDynamo();
    // The race was lost about 4 times in 10 with two callers: 20 rounds of three miss it with a chance below 1e-9.
    for (let round = 0; round < 20; round++) {
      const name = `kit-race-${randomUUID().slice(0, 8)}`;
      const outcomes = await Promise.allSettled([1, 2, 3].map(() => createIdempotencyTable(client, name, { stream: round % 2 === 0 })));
      const rejected = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
      expect(rejected, `round ${round}`).toEqual([]);
      const values = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected')).sort();
      expect(values).toEqual(['created', 'existed', 'existed']);
    }
  });
});

describe('the kit’s options are checked before anything starts', () => {
  it.each([
    [{ jvm: 'fast' }, /startDynamoDBLocal: option "jvm" must be one of "lean", "stock", got "fast"/],
    [{ readyTimeout: 5000 }, /startDynamoDBLocal: unknown option "readyTimeout" \(known options: readyTimeoutMs, ignoreEnv, jvm\)/],
    [{ ignoreEnv: 'yes' }, /startDynamoDBLocal: option "ignoreEnv" must be a boolean/],
    [{ readyTimeoutMs: -1 }, /startDynamoDBLocal: option "readyTimeoutMs" must be/],
    [[], /startDynamoDBLocal: options must be an object/],
  ])('startDynamoDBLocal(%o) is a TypeError naming it, and starts no server', async (bad, message) => {
    // Not `DYNAMODB_ENDPOINT`'s server: the check must come before the kit decides to start one.
    const outcome = await startDynamoDBLocal((Array.isArray(bad) ? bad : { ignoreEnv: true, ...bad }) as never).then(
      async (local) => {
        await local.stop();
        return 'started';
      },
      (err: unknown) => err,
    );
    expect(outcome).toBeInstanceOf(TypeError);
    expect(String(outcome)).toMatch(message);
  });

  it('createIdempotencyTable with a mistyped option is a TypeError naming it, and creates no table', async () => {
    const { client } = testDynamo();
    const name = `kit-${randomUUID().slice(0, 8)}`;
    await expect(createIdempotencyTable(client, name, { steam: true } as never)).rejects.toThrow(
      /createIdempotencyTable: unknown option "steam" \(known options: stream\)/,
    );
    await expect(createIdempotencyTable(client, name, { stream: 'yes' } as never)).rejects.toThrow(TypeError);
    await expect(client.send(new DescribeTableCommand({ TableName: name }))).rejects.toThrow(/non-existent|not found/i);
  });
});

/** Starts a process that starts DynamoDB Local through the kit and then waits forever; resolves with the JVM's PID and port. */
function startRunner(): Promise<{ runner: ChildProcess; pid: number; port: number }> {
  // `node --import tsx`, not the tsx bin: that one runs the script in a second process, which a SIGKILL would orphan.
  const child = spawn(process.execPath, ['--import', 'tsx', runner], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DYNAMODB_ENDPOINT: '' },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /ready (\d+) http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (ready !== null) resolve({ runner: child, pid: Number(ready[1]), port: Number(ready[2]) });
    });
    child.once('exit', (code) => reject(new Error(`runner exited (${code}) before it was ready: ${out}`)));
  });
}

describe.skipIf(process.platform === 'win32')('startDynamoDBLocal leaves no JVM behind', () => {
  it.each(['SIGINT', 'SIGKILL'] as const)(
    'when the process that started it gets %s',
    async (signal) => {
      const { runner: child, pid, port } = await startRunner();
      try {
        expect(alive(pid)).toBe(true);
        expect(await answers(port)).toBe(true);
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill(signal);
        await exited;
        expect(await until(async () => !alive(pid) && !(await answers(port)), 10_000)).toBe(true);
      } finally {
        child.kill('SIGKILL');
      }
    },
    60_000,
  );
});
