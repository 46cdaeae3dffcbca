import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinitions } from '../../../infra/tables.js';
import { ManualClock } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { completed, runCli, writer } from './support.js';

const HOUR = 3_600_000;
let table: string;
let now: number;

beforeAll(async () => {
  table = await freshTable(testDynamo().client, tableDefinitions.idempotency, 'cli');
  now = Date.now();
  // Two consumers crashed holding claims 3 h and 2 h ago; one claim is fresh; one record completed.
  const clock = new ManualClock(now - 3 * HOUR);
  const store = writer(table, clock);
  await store.claim({ consumer: 'notifications', key: 'n-old', leaseMs: 30_000, messageId: 'm-old' });
  clock.advance(HOUR);
  await store.claim({ consumer: 'payments', key: 'p-old', leaseMs: 30_000, messageId: 'm-p' });
  await completed(store, 'payments', 'p-done');
  clock.advance(2 * HOUR);
  await store.claim({ consumer: 'payments', key: 'p-live', leaseMs: 30_000 });
});

describe('effectively-once stale', () => {
  it('lists claims whose lease ended more than --older-than ago, oldest first, and nothing else', async () => {
    const run = await runCli(['stale', '--table', table, '--older-than', '1h', '--json'], { now });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout) as { claims: { id: string; messageId?: string }[]; truncated: boolean };
    expect(doc.claims.map((c) => c.id)).toEqual(['notifications#n-old', 'payments#p-old']);
    expect(doc.claims[0]).toMatchObject({ messageId: 'm-old', attempts: 1 });
    expect(doc.truncated).toBe(false);
  });

  it('prints a table with how overdue each claim is, and honours --limit', async () => {
    const run = await runCli(['stale', '--table', table, '--older-than', '90m', '--limit', '1'], { now });
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+leaseUntil\s+overdue\s+attempts\s+messageId$/);
    expect(lines[1]).toMatch(/^notifications#n-old\s+\S+Z\s+2h59m\s+1\s+m-old$/);
    expect(lines[2]).toContain('limit 1 reached');
    expect(lines).toHaveLength(3);
  });

  it('uses a 15 minute grace by default', async () => {
    const run = await runCli(['stale', '--table', table, '--json'], { now: now + 10 * 60_000 });
    // p-live's lease ended 9.5 minutes before: not stale yet.
    expect((JSON.parse(run.stdout) as { claims: unknown[] }).claims).toHaveLength(2);
    const later = await runCli(['stale', '--table', table, '--json'], { now: now + 20 * 60_000 });
    expect((JSON.parse(later.stdout) as { claims: unknown[] }).claims).toHaveLength(3);
  });

  it('rejects a bad duration or limit as a usage error', async () => {
    const bad = await runCli(['stale', '--table', table, '--older-than', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--older-than must be a duration');
    const limit = await runCli(['stale', '--table', table, '--limit', '0']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--limit must be a positive integer');
  });

  it('says so when the table has no in-flight index', async () => {
    const bare = await freshTable(
      testDynamo().client,
      {
        ...businessTable,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      },
      'noindex',
    );
    const run = await runCli(['stale', '--table', bare]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`has no inflight-by-lease index`);
  });
});
