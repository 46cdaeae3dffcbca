import { beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../../src/engine/hashing.js';
import { ManualClock } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { completed, localEnv, runCli, writer } from './support.js';

let table: string;

beforeAll(async () => {
  table = await freshTable(testDynamo().client, undefined, 'cli');
  const clock = new ManualClock(Date.now());
  await completed(writer(table, clock), 'payments', 'order-42');
  await completed(writer(table, clock, true), 'emails', 'ada@example.com');
});

describe('effectively-once inspect', () => {
  it('prints a record stored with the key as it is, and says which form matched', async () => {
    const run = await runCli(['inspect', '--table', table, '--consumer', 'payments', '--key', 'order-42']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('payments#order-42  (matched the key as it is)');
    expect(run.stdout).toMatch(/status\s+COMPLETED/);
    expect(run.stdout).toMatch(/messageId\s+m-order-42/);
    expect(run.stdout).toContain('{"receipt":"r-order-42"}');
  });

  it('finds a record of a store with hashKeys by hashing the key, without being told', async () => {
    const run = await runCli(['inspect', '--table', table, '--consumer', 'emails', '--key', 'ada@example.com', '--json']);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { id: string; matched: string; record: { status: string } };
    expect(doc).toMatchObject({ id: `emails#${sha256('ada@example.com')}`, matched: 'hashed', record: { status: 'COMPLETED' } });
  });

  it('with --plain-keys does not try the hashed form', async () => {
    const run = await runCli(['inspect', '--table', table, '--consumer', 'emails', '--key', 'ada@example.com', '--plain-keys']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('no live record: tried emails#ada@example.com (the key as it is).');
  });

  it('finds a record by its id', async () => {
    const run = await runCli(['inspect', '--table', table, '--id', 'payments#order-42', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ matched: 'id', record: { id: 'payments#order-42', attempts: 1 } });
  });

  it('exits 1 and names every id tried when nothing matches', async () => {
    const run = await runCli(['inspect', '--table', table, '--consumer', 'payments', '--key', 'nope']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`payments#nope (the key as it is), payments#${sha256('nope')} (the SHA-256 of the key (hashKeys))`);
  });

  it('exits 2 with the usage on a missing or unknown flag, before any request', async () => {
    const missing = await runCli(['inspect', '--table', table, '--consumer', 'payments']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--key is required');
    const unknown = await runCli(['inspect', '--table', table, '--consumer', 'payments', '--key', 'k', '--colour']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--colour'");
    const noTable = await runCli(['inspect', '--consumer', 'payments', '--key', 'k']);
    expect(noTable.code).toBe(2);
    expect(noTable.stderr).toContain('--table is required (or set IDEMPOTENCY_TABLE)');
    const command = await runCli(['inspekt']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "inspekt"');
  });

  it('--help prints the commands, or the flags of one command, exit 0 without touching AWS', async () => {
    const top = await runCli(['--help'], { env: {} });
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/inspect .*\n.*forget .*\n.*stale /);
    const own = await runCli(['forget', '--help'], { env: {} });
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('[--yes]');
    const none = await runCli([], { env: {} });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('usage: effectively-once <command>');
  });

  it('takes the table from IDEMPOTENCY_TABLE', async () => {
    const run = await runCli(['inspect', '--id', 'payments#order-42'], { env: { ...localEnv(), IDEMPOTENCY_TABLE: table } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('payments#order-42');
  });
});
