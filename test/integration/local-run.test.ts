/**
 * The local run (`npm start`) end to end, small: real handlers, DynamoDB
 * Local (from the global setup), the embedded SQS, duplicates, transient
 * failures and poison. Every invariant of the report must hold.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { formatReport } from '../../scripts/local/format.js';
import { runLocal, type LocalRunReport } from '../../scripts/local/run.js';

const ORDERS = 60;

describe('local run', () => {
  let report: LocalRunReport;

  it('runs the workload to the end with every invariant holding', async () => {
    report = await runLocal({
      orders: ORDERS,
      seed: 7,
      pollers: 2,
      dupRate: 0.2,
      failRate: 0.1,
      dynamodbEndpoint: inject('dynamodbEndpoint'),
      timeoutMs: 90_000,
    });
    expect(report.invariants.filter((i) => !i.ok)).toEqual([]);
    expect(report.ok).toBe(true);
  }, 120_000);

  it('pays each order exactly once and awards points once per order', () => {
    const { orders, points } = report.effects;
    expect(orders.paid).toBe(ORDERS);
    expect(orders.transitionsApplied).toBe(ORDERS);
    expect(orders.paidMoreThanOnce).toEqual([]);
    expect(points.ledgerItems).toBe(ORDERS);
    expect(points.balanceMismatches).toEqual([]);
  });

  it('sends each notification once, though some were delivered twice and some sends failed', () => {
    const { notifications } = report.effects;
    expect(notifications.sent).toBe(ORDERS);
    expect(notifications.sentMoreThanOnce).toEqual([]);
    expect(report.faultsInjected.send).toBeGreaterThan(0);
  });

  it('acknowledges the duplicates the workload sent and retries the failed records', () => {
    expect(report.duplicatesAcknowledged).toBeGreaterThan(0);
    expect(report.sent.sent.payments.resend).toBeGreaterThan(0);
    expect(report.sent.orderPaidRepublished).toBeGreaterThan(0);
    expect(report.sources.payments.retried).toBeGreaterThan(0);
    expect(report.sources.points.retried).toBeGreaterThanOrEqual(report.faultsInjected.points);
  });

  it('dead-letters the poison messages, with reasons, and nothing else', () => {
    // Each distinct message once: a permanent failure delivered twice (redelivered while its first batch
    // still ran, on a loaded machine) is sent to the DLQ once per delivery, as copies of one source message.
    const defects = (q: 'payments' | 'notifications') => [...new Set(report.dlq[q].map((d) => d.defect))].sort();
    expect(defects('payments')).toEqual(['body is not JSON', 'no orderNo', 'order does not exist', 'order is CANCELLED']);
    expect(defects('notifications')).toEqual(['body is not JSON', 'no channel/text']);
    for (const entry of [...report.dlq.payments, ...report.dlq.notifications]) {
      expect(entry.reason).toMatch(/Error/);
    }
    expect(report.dlq.points).toEqual([]);
    expect(Object.values(report.leftInQueues)).toEqual([0, 0, 0]);
  });

  it('shows the EMF metrics the handlers emitted, per consumer, matching the logged outcomes', () => {
    const { payments, points } = report.metrics;
    expect(payments?.Documents).toBeGreaterThan(0);
    expect(payments?.RecordsDuplicate).toBe(report.outcomes.payments?.duplicate);
    expect(payments?.RecordsInvalid).toBeGreaterThan(0); // the poison messages without an orderNo
    expect(points?.RecordsDuplicate).toBeGreaterThan(0);
    expect(points?.Replays).toBe(points?.RecordsDuplicate);
    expect(report.invariants.find((i) => i.name === 'EMF metrics match the logged outcomes')?.ok).toBe(true);
    expect(formatReport(report)).toMatch(/EMF metrics \(sums\)\s+docs\s+records\s+completed\s+duplicate/);
    // The relay's documents too: to the collector, not to stdout (a row of their own, not a consumer's).
    expect(report.metrics['outboxRelay']?.['OutboxPublished']).toBeGreaterThanOrEqual(ORDERS);
    expect(formatReport(report)).toMatch(/\noutbox relay: \d+ docs, published \d+, refused \d+, malformed 0, mark failed \d+/);
  });

  it('sends the notifications poison straight to the DLQ as permanent, and backs off the records that come back', () => {
    const notifications = report.dlq.notifications;
    expect(notifications.every((d) => d.permanent === true)).toBe(true);
    expect(new Set(notifications.map((d) => d.sourceMessageId)).size).toBe(2);
    expect([...new Set(notifications.map((d) => d.reason.split(':')[1]))].sort()).toEqual([' BodyParseError', ' PermanentError']);
    expect(report.outcomes['notifications']?.['dead-lettered']).toBeGreaterThanOrEqual(2);
    // payments is not configured with deadLetter: its poison is redriven after maxReceiveCount.
    expect(report.dlq.payments.every((d) => d.permanent === undefined)).toBe(true);
    // Notifications' records that came back asked for a backoff (SQS may refuse some for a receipt handle
    // gone stale, so only that some went through is asserted, not how many).
    expect(report.backedOff['notifications']).toBeGreaterThan(0);
    expect(report.backedOff['payments']).toBeUndefined();
  });

  it('counts DynamoDB requests per delivery', () => {
    expect(report.dynamodb.total).toBeGreaterThan(0);
    expect(report.dynamodb.perDelivery).toBeGreaterThan(0.5);
    expect(report.dynamodb.perDelivery).toBeLessThan(4);
  });
});

/** Runs `npm start`'s script (as `tsx scripts/start.ts` does) on the test DynamoDB Local; its exit code and output. */
function npmStart(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = fileURLToPath(new URL('../../scripts/start.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, DYNAMODB_ENDPOINT: inject('dynamodbEndpoint') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm start', () => {
  it('prints its progress lines and its report, and no JSON line (the EMF documents go to the report)', async () => {
    const { code, stdout, stderr } = await npmStart(['--orders', '20', '--pollers', '2']);
    expect(code, stderr).toBe(0);
    const jsonLines = `${stdout}\n${stderr}`.split('\n').filter((line) => line.trimStart().startsWith('{'));
    expect(jsonLines.length, jsonLines.slice(0, 3).join('\n')).toBe(0);
    expect(stderr).toMatch(/^\[\s*\d+s\] sent \d+/m);
    expect(stdout).toMatch(/EMF metrics \(sums\)/);
    expect(stdout).toMatch(/\noutbox relay: \d+ docs, published [1-9]/);
  }, 120_000);
});
