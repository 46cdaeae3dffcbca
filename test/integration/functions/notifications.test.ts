import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createNotificationsHandler, outboxSender } from '../../../functions/notifications.js';
import type { NotificationMessage } from '../../../functions/shared/messages.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { tableDefinitions } from '../../../infra/tables.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';

const { client, doc } = testDynamo();
let idempotency: string;

beforeAll(async () => {
  idempotency = await freshTable(client, tableDefinitions.idempotency, 'idem');
});

/** A handler whose side effect is recorded; the first `failures` calls reject. */
function setup(failures = 0) {
  const sent: NotificationMessage[] = [];
  let calls = 0;
  const send = async (n: NotificationMessage): Promise<void> => {
    calls += 1;
    if (calls <= failures) throw new Error('provider returned 503');
    sent.push(n);
  };
  const handler = createNotificationsHandler({ client: doc, tables: { idempotency }, send, logger: false });
  const deliver = (...bodies: unknown[]) =>
    handler(sqsEvent(bodies.map((body) => sqsRecord({ body }))), lambdaContext({ functionName: 'notifications', timeoutMs: 30_000 }));
  return { sent, deliver, calls: () => calls };
}

const notification = (): NotificationMessage => ({
  notificationId: `n-${randomUUID()}`,
  orderNo: `o-${randomUUID()}`,
  channel: 'email',
  text: 'Your order is paid.',
});

describe('notifications', () => {
  it('calls the side effect once for a duplicate, in the same batch or a later one', async () => {
    const { sent, deliver } = setup();
    const n = notification();
    const first = await deliver(n, n);
    // The in-batch twin follows the first copy: acknowledged with it, not sent again.
    expect(first.batchItemFailures).toEqual([]);
    expect(await deliver(n)).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([n]);
  });

  it('fails the record when the side effect fails, and sends it on the retry', async () => {
    const { sent, deliver, calls } = setup(1);
    const n = notification();
    const other = notification();
    const first = await deliver(n, other);
    expect(first.batchItemFailures).toHaveLength(1);
    expect(await deliver(n, other)).toEqual({ batchItemFailures: [] });
    expect(sent.map((s) => s.notificationId).sort()).toEqual([n.notificationId, other.notificationId].sort());
    expect(calls()).toBe(3);
  });

  it('writes the default outbox line as JSON', async () => {
    const lines: string[] = [];
    const n = notification();
    await outboxSender((line) => lines.push(line))(n);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([{ outbox: 'notification', ...n }]);
  });

  it('a hung side effect is answered 500 ms before the timeout (middy timeoutEarlyInMillis), with no near-deadline warning', async () => {
    const lines: BatchLogLine[] = [];
    const send = () => new Promise<never>(() => {});
    const handler = createNotificationsHandler({ client: doc, tables: { idempotency }, send, logger: (l) => lines.push(l) });
    const record = sqsRecord({ body: notification() });
    const context = lambdaContext({ functionName: 'notifications', timeoutMs: 900 });
    const response = await handler(sqsEvent([record]), context);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(100);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty('warnings');
  });
});
