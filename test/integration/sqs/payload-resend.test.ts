/**
 * A producer's re-send of one event under its business key, with a changed envelope field (`sentAt`), against
 * DynamoDB Local and fauxqs (docs/options.md, "The payload check"): with `payload` narrowed to the fields that
 * matter it is a duplicate, acknowledged; under the strict default it is a `PayloadMismatchError` that is never
 * acknowledged unsent: `deadLetter()` sends it to the DLQ at once (FIFO: only from the head of its group), and
 * without it the record comes back for the queue's redrive policy. The log line says which option narrows the payload.
 */
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetter, jsonBody } from '../../../src/index.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { startLocalSqs, type LocalSqs } from '../../../scripts/local/sqs-server.js';
import { strategyOf } from '../../support/strategy.js';
import { failedIds, harness, order, type Harness } from './harness.js';
import { pollOnce, queuePair, receiveAll, send } from './sqs-queues.js';

interface Order {
  readonly orderNo: string;
  readonly amount: number;
  readonly sentAt: string;
}

/** The docs' narrowed payload: every field but the envelope's `sentAt`. */
const withoutSentAt = (r: SQSRecord) => {
  const { sentAt: _sentAt, ...event } = jsonBody<Order>(r);
  return event;
};

const FIRST_SENT = '2026-12-01T10:00:00.000Z';
const RESENT = '2026-12-01T10:05:00.000Z';

let sqs: LocalSqs;
let h: Harness;
beforeAll(async () => {
  sqs = await startLocalSqs();
  h = await harness();
});
afterAll(async () => sqs?.stop());

/** The last log line's entry for `messageId`. */
const entry = (messageId: string) => h.lines.at(-1)?.records.find((r) => r.messageId === messageId);

describe('a re-send with a changed sentAt under a COMPLETED key', () => {
  for (const strategy of ['claim', 'transaction'] as const) {
    it(`${strategy}: with payload narrowed to the fields that matter, it is a duplicate: acknowledged, no second effect`, async () => {
      const orderNo = `narrow-${strategy}`;
      const handler = h.handler(undefined, { payload: withoutSentAt, strategy: strategyOf(strategy) });
      expect(failedIds(await handler(sqsEvent([order(orderNo, { amount: 10, sentAt: FIRST_SENT })]), h.context()))).toEqual([]);
      const resend = order(orderNo, { amount: 10, sentAt: RESENT });
      expect(failedIds(await handler(sqsEvent([resend]), h.context()))).toEqual([]);
      expect(entry(resend.messageId)?.outcome).toBe('duplicate');
      // The transaction strategy runs the handler before its commit finds the duplicate (its writes are not applied).
      if (strategy === 'claim') expect(h.effects.get(orderNo)).toBe(1);
      // Narrowed, not off: another amount under the same key is still flagged.
      const changed = order(orderNo, { amount: 11, sentAt: RESENT });
      expect(failedIds(await handler(sqsEvent([changed]), h.context()))).toEqual([changed.messageId]);
      expect(entry(changed.messageId)?.error?.name).toBe('PayloadMismatchError');
    });
  }

  it('default, without deadLetter(): invalid and returned in batchItemFailures (never acknowledged); the line names the option and the doc', async () => {
    const handler = h.handler();
    const first = order('strict-1', { amount: 10, sentAt: FIRST_SENT });
    expect(failedIds(await handler(sqsEvent([first]), h.context()))).toEqual([]);
    const resend = order('strict-1', { amount: 10, sentAt: RESENT });
    const other = order('strict-2', { amount: 5, sentAt: RESENT });
    expect(failedIds(await handler(sqsEvent([resend, other]), h.context()))).toEqual([resend.messageId]);
    const logged = entry(resend.messageId);
    expect(logged?.outcome).toBe('invalid');
    expect(logged?.error?.name).toBe('PayloadMismatchError');
    expect(logged?.error?.message).toContain('set the option payload to a function that returns the fields that do');
    expect(logged?.error?.message).toContain('docs/options.md#the-payload-check');
    expect(h.lines.at(-1)?.level).toBe('WARN');
    expect(h.effects.get('strict-1')).toBe(1);
    expect(h.effects.get('strict-2')).toBe(1); // the batch goes on
    // Delivered again (as the queue will, up to maxReceiveCount), it is the same mismatch: nothing was recorded for it.
    expect(failedIds(await handler(sqsEvent([resend]), h.context()))).toEqual([resend.messageId]);
    expect((await h.store.get(h.store.recordId('test', 'strict-1')))?.messageId).toBe(first.messageId);
  });

  it('default, with deadLetter(), standard queue: sent to the DLQ at once and acknowledged; the stored record is untouched', async () => {
    const { source, dlq } = await queuePair(sqs.client);
    const handler = h.handler(undefined, { deadLetter: deadLetter({ sqs: sqs.client }) });
    const firstId = await send(sqs.client, source, { orderNo: 'dlq-1', amount: 10, sentAt: FIRST_SENT });
    expect((await pollOnce(sqs.client, source, handler))?.deleted).toEqual([firstId]);
    const resendId = await send(sqs.client, source, { orderNo: 'dlq-1', amount: 10, sentAt: RESENT });
    const report = await pollOnce(sqs.client, source, handler);
    expect(report?.deleted).toEqual([resendId]);
    expect(report && 'response' in report ? failedIds(report.response as never) : ['no response']).toEqual([]);
    expect(entry(resendId)?.outcome).toBe('dead-lettered');
    const [copy, ...more] = await receiveAll(sqs.client, dlq);
    expect(more).toEqual([]);
    expect(JSON.parse(copy?.Body ?? '{}')).toMatchObject({ orderNo: 'dlq-1', sentAt: RESENT });
    expect(copy?.MessageAttributes?.['eo-error-name']?.StringValue).toBe('PayloadMismatchError');
    expect(copy?.MessageAttributes?.['eo-reason']?.StringValue).toContain('docs/options.md#the-payload-check');
    expect(await receiveAll(sqs.client, source)).toEqual([]);
    expect(h.effects.get('dlq-1')).toBe(1);
    // The first delivery's record stays COMPLETED: a redrive of the copy meets the same record (the docs say so).
    const stored = await h.store.get(h.store.recordId('test', 'dlq-1'));
    expect(stored).toMatchObject({ status: 'COMPLETED', messageId: firstId });
  });

  // fauxqs hands one message per FIFO group to a receive; Lambda's mapping hands several, in order: built here.
  it('default, with deadLetter(), FIFO: dead-lettered from the head of its group; the record behind it comes back; other groups go on', async () => {
    const { dlq } = await queuePair(sqs.client, { fifo: true });
    const handler = h.handler(undefined, { deadLetter: deadLetter({ sqs: sqs.client, dlqUrl: dlq.url }) });
    const first = order('fifo-1', { amount: 10, sentAt: FIRST_SENT }, { groupId: 'g-1' });
    expect(failedIds(await handler(sqsEvent([first]), h.context()))).toEqual([]);
    const resend = order('fifo-1', { amount: 10, sentAt: RESENT }, { groupId: 'g-1' });
    const next = order('fifo-2', { amount: 20, sentAt: RESENT }, { groupId: 'g-1' });
    const other = order('fifo-3', { amount: 30, sentAt: RESENT }, { groupId: 'g-2' });
    expect(failedIds(await handler(sqsEvent([resend, next, other]), h.context()))).toEqual([next.messageId]);
    expect(entry(resend.messageId)?.outcome).toBe('dead-lettered');
    expect(entry(next.messageId)?.outcome).toBe('not-started');
    expect(entry(other.messageId)?.outcome).toBe('completed');
    const [copy, ...more] = await receiveAll(sqs.client, dlq);
    expect(more).toEqual([]);
    expect(copy?.Attributes?.['MessageGroupId']).toBe('g-1');
    expect(copy?.MessageAttributes?.['eo-message-id']?.StringValue).toBe(resend.messageId);
    expect(copy?.MessageAttributes?.['eo-error-name']?.StringValue).toBe('PayloadMismatchError');
    // The group's next record, delivered again, is now first in its group and runs.
    expect(failedIds(await handler(sqsEvent([next]), h.context()))).toEqual([]);
    expect(h.effects.get('fifo-2')).toBe(1);
  });

  it('default, with deadLetter(), FIFO: a mismatch behind a record of its group that comes back comes back too, in order', async () => {
    const { dlq } = await queuePair(sqs.client, { fifo: true });
    const failing = new Set(['fifo-fail']);
    const handler = h.handler(
      (_r, { key }) => {
        if (failing.has(key)) throw new Error('downstream timeout');
        h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
      },
      { deadLetter: deadLetter({ sqs: sqs.client, dlqUrl: dlq.url }) },
    );
    const first = order('fifo-behind', { amount: 1, sentAt: FIRST_SENT }, { groupId: 'g-3' });
    expect(failedIds(await handler(sqsEvent([first]), h.context()))).toEqual([]);
    const fail = order('fifo-fail', { amount: 2, sentAt: RESENT }, { groupId: 'g-3' });
    const resend = order('fifo-behind', { amount: 1, sentAt: RESENT }, { groupId: 'g-3' });
    expect(failedIds(await handler(sqsEvent([fail, resend]), h.context()))).toEqual([fail.messageId, resend.messageId]);
    // A permanent failure, held by the lane rule: the record ahead of it in its group comes back.
    expect(entry(resend.messageId)).toMatchObject({ outcome: 'invalid', error: { name: 'PayloadMismatchError' } });
    expect(await receiveAll(sqs.client, dlq)).toEqual([]);
    // Once the record ahead of it succeeds, the mismatch is the head of its group's failures and goes to the DLQ.
    failing.clear();
    expect(failedIds(await handler(sqsEvent([fail, resend]), h.context()))).toEqual([]);
    expect(entry(resend.messageId)?.outcome).toBe('dead-lettered');
    const copies = await receiveAll(sqs.client, dlq);
    expect(copies.map((m) => m.MessageAttributes?.['eo-message-id']?.StringValue)).toEqual([resend.messageId]);
  });
});
