import type { ScheduledEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNotificationsHandler } from '../../../functions/notifications.js';
import { createSweeperHandler } from '../../../functions/sweeper.js';
import { tableDefinitions } from '../../../infra/tables.js';
import { abandon, invoke, lambdaContext, ManualClock, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { rawItem } from '../../support/store.js';

const { client, doc } = testDynamo();
let idempotency: string;

beforeAll(async () => {
  idempotency = await freshTable(client, tableDefinitions.idempotency, 'idem');
});

const GRACE = 10 * 60_000;
const scheduled = {} as ScheduledEvent;

describe('sweeper', () => {
  it('reports a claim whose consumer crashed, once its lease is long past, and changes nothing', async () => {
    const clock = new ManualClock(Date.now());
    const tables = { idempotency };
    // A notifications consumer dies mid side effect: its claim stays IN_PROGRESS.
    const crashing = createNotificationsHandler({ client: doc, tables, clock, send: () => abandon('killed'), logger: false });
    const body = { notificationId: 'n-crash', orderNo: 'o-1', channel: 'sms', text: 'hi' };
    const record = sqsRecord({ body, messageId: 'm-crash' });
    const crashed = await invoke(crashing, sqsEvent([record]), { clock, timeoutMs: 30_000, functionName: 'notifications' });
    expect(crashed.kind).toBe('crashed');
    // A healthy delivery completes and must not be reported.
    const healthy = createNotificationsHandler({ client: doc, tables, clock, send: async () => undefined, logger: false });
    const ok = sqsEvent([sqsRecord({ body: { ...body, notificationId: 'n-ok' } })]);
    expect(await healthy(ok, lambdaContext({ clock, timeoutMs: 30_000 }))).toEqual({ batchItemFailures: [] });

    const lines: string[] = [];
    const sweep = createSweeperHandler({
      client: doc,
      tables,
      clock,
      graceMs: GRACE,
      write: (line) => lines.push(line),
      metrics: { namespace: 'EffectivelyOnce', service: 'test' },
    });
    // Right after the crash the lease is still live: nothing to report.
    expect((await sweep(scheduled, lambdaContext())).staleClaims).toBe(0);

    const claim = await rawItem(doc, idempotency, { id: 'notifications#n-crash' });
    expect(claim).toMatchObject({ status: 'IN_PROGRESS' });
    clock.advance(Number(claim?.['leaseUntil']) - clock.now() + GRACE + 1);
    const report = await sweep(scheduled, lambdaContext());
    expect(report.staleClaims).toBe(1);
    expect(report.oldest[0]).toMatchObject({ id: 'notifications#n-crash', messageId: 'm-crash' });
    expect(report.oldest[0]?.overdueMs).toBeGreaterThan(GRACE);

    const [log, metric] = lines.slice(-2).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(log).toMatchObject({ level: 'WARN', message: 'stale-claims', staleClaims: 1 });
    expect(metric).toMatchObject({
      _aws: {
        CloudWatchMetrics: [{ Namespace: 'EffectivelyOnce', Dimensions: [['Service']], Metrics: [{ Name: 'StaleClaims', Unit: 'Count' }] }],
      },
      Service: 'test',
      StaleClaims: 1,
    });
    // Read-only: reporting twice finds the same claim.
    expect((await sweep(scheduled, lambdaContext())).staleClaims).toBe(1);
  });
});
