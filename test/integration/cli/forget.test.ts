import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.js';
import { sha256 } from '../../../src/engine/hashing.js';
import { ManualClock } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { rawItem } from '../../support/store.js';
import { completed, localEnv, runCli, writer } from './support.js';

const { doc } = testDynamo();
let table: string;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  table = await freshTable(testDynamo().client, undefined, 'cli');
});

const forgetArgs = (key: string, ...more: string[]): string[] => [
  'forget',
  '--table',
  table,
  '--consumer',
  'payments',
  '--key',
  key,
  ...more,
];

describe('effectively-once forget', () => {
  it('with --yes deletes the record, prints one JSON audit line, and the key can be claimed again', async () => {
    const store = writer(table, clock);
    await completed(store, 'payments', 'o-1');
    const run = await runCli(forgetArgs('o-1', '--yes', '--json'));
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2); // the record shown, then the audit line
    const audit = JSON.parse(lines[1] ?? '') as Record<string, unknown>;
    expect(audit).toMatchObject({
      audit: 'effectively-once forget',
      id: 'payments#o-1',
      statusBefore: 'COMPLETED',
      attemptsBefore: 1,
      table,
      who: { accessKeyId: 'local' },
    });
    expect(typeof (audit['who'] as Record<string, unknown>)['osUser']).toBe('string');
    expect(Number.isNaN(Date.parse(String(audit['at'])))).toBe(false);
    expect(await rawItem(doc, table, { id: 'payments#o-1' })).toBeUndefined();
    // Forgotten: the next delivery runs the handler again.
    expect((await store.claim({ consumer: 'payments', key: 'o-1', leaseMs: 1000 })).kind).toBe('claimed');
  });

  it("on a loopback endpoint with no region set, the audit line names the region used there, and --no-redis says no filter's marker can answer", async () => {
    await completed(writer(table, clock), 'payments', 'o-region');
    const { AWS_REGION: _region, ...noRegion } = localEnv();
    const run = await runCli(forgetArgs('o-region', '--yes', '--no-redis'), { env: noRegion });
    expect(run.code).toBe(0);
    const audit = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
    expect(audit).toMatchObject({ id: 'payments#o-region', region: 'us-east-1', redisMarker: null });
    expect(run.stderr).not.toMatch(/redis/i);
  });

  it('--no-redis with a Redis URL is a usage error (which one is meant?)', async () => {
    const run = await runCli(forgetArgs('o-none', '--yes', '--no-redis', '--redis-url', 'redis://127.0.0.1:6379'));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--no-redis');
  });

  it('--no-redis: no record found prints no hint about a filter marker', async () => {
    const run = await runCli(forgetArgs('o-never', '--yes', '--no-redis'));
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/redis/i);
  });

  it('without a terminal and without --yes refuses, exit 1, and deletes nothing', async () => {
    await completed(writer(table, clock), 'payments', 'o-2');
    const run = await runCli(forgetArgs('o-2'), { tty: false, stdin: ['y'] });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refusing to delete: stdin is not a terminal');
    expect(run.stderr).toContain('--yes');
    expect(await rawItem(doc, table, { id: 'payments#o-2' })).toMatchObject({ status: 'COMPLETED' });
  });

  it('asks on a terminal: "n" keeps the record, "y" deletes it', async () => {
    await completed(writer(table, clock), 'payments', 'o-3');
    const no = await runCli(forgetArgs('o-3'), { tty: true, stdin: ['n'] });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain('Delete payments#o-3 (COMPLETED)?');
    expect(no.stderr).toContain('not deleted.');
    expect(await rawItem(doc, table, { id: 'payments#o-3' })).toMatchObject({ status: 'COMPLETED' });

    const closed = await runCli(forgetArgs('o-3'), { tty: true, stdin: [] });
    expect(closed.code).toBe(1);
    expect(await rawItem(doc, table, { id: 'payments#o-3' })).toMatchObject({ status: 'COMPLETED' });

    const yes = await runCli(forgetArgs('o-3'), { tty: true, stdin: ['y'] });
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain('"statusBefore":"COMPLETED"');
    expect(await rawItem(doc, table, { id: 'payments#o-3' })).toBeUndefined();
  });

  it('deletes a hashed-key record found by its key', async () => {
    await completed(writer(table, clock, true), 'payments', 'o-4');
    const run = await runCli(forgetArgs('o-4', '--yes'));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`"id":"payments#${sha256('o-4')}"`);
    expect(await rawItem(doc, table, { id: `payments#${sha256('o-4')}` })).toBeUndefined();
  });

  it('does not delete a record that changed between showing and confirming', async () => {
    // A crashed claim: its lease passes and another delivery takes it over while the operator reads.
    const store = writer(table, clock);
    await store.claim({ consumer: 'payments', key: 'o-5', leaseMs: 1000 });
    const later = clock.now() + 5000;
    const stdin = {
      // The operator answers "y" only after the takeover below has happened.
      lines: async function* () {
        clock.advance(later - clock.now());
        const retaken = await store.claim({ consumer: 'payments', key: 'o-5', leaseMs: 60_000 });
        expect(retaken.kind).toBe('claimed');
        yield 'y\n';
      },
    };
    let stderr = '';
    let stdout = '';
    const code = await main(forgetArgs('o-5'), {
      stdin: Readable.from(stdin.lines()),
      stdinIsTTY: true,
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: localEnv(),
      now: () => later,
    });
    expect(code).toBe(1);
    expect(stdout).not.toContain('audit');
    expect(stderr).toContain('not deleted: the record changed since it was shown (it is now IN_PROGRESS, attempt 2)');
    expect(await rawItem(doc, table, { id: 'payments#o-5' })).toMatchObject({ status: 'IN_PROGRESS', attempts: 2 });
  });

  it('warns before deleting a claim whose lease is still live', async () => {
    await writer(table, clock).claim({ consumer: 'payments', key: 'o-6', leaseMs: 60_000 });
    const run = await runCli(forgetArgs('o-6', '--yes'), { now: clock.now() });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("warning: this claim's lease runs until");
  });

  it('exits 1 when there is no such record', async () => {
    const run = await runCli(forgetArgs('never', '--yes'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no live record');
    expect(run.stdout).toBe('');
  });
});
