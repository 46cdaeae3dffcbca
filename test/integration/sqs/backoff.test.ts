/**
 * Per-message backoff against fauxqs: a record that comes back is hidden
 * for its backoff, so the next poll does not get it, while the same failure
 * without backoff is received again at once (the queue's visibility timeout
 * here is 0). Order of receives, never wall-clock durations, is asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import { backoff, deadLetter, PermanentError } from '../../../src/index.js';
import { startLocalSqs, type LocalSqs } from '../../../scripts/local/sqs-server.js';
import { harness, type Harness } from './harness.js';
import { countingClient, pollOnce, queuePair, receiveAll, send } from './sqs-queues.js';

let sqs: LocalSqs;
let h: Harness;
beforeAll(async () => {
  sqs = await startLocalSqs();
  h = await harness();
});
afterAll(async () => sqs?.stop());

const failing: RecordHandler = (_record, { key }) => {
  if (key.startsWith('perm-')) throw new PermanentError('never');
  if (key.startsWith('fail-')) throw new Error('downstream timeout');
};
/** A long backoff whatever the jitter draws (0.999 of a 600 s ceiling). */
const long = () => ({ baseSeconds: 600, maxSeconds: 600, random: () => 0.999 });

describe('backoff', () => {
  it('hides a failed record for its backoff: the next poll does not get it, while without backoff it comes straight back', async () => {
    const withBackoff = await queuePair(sqs.client, { visibility: 0 });
    const without = await queuePair(sqs.client, { visibility: 0 });
    const a = await send(sqs.client, withBackoff.source, { orderNo: 'fail-a' });
    const b = await send(sqs.client, without.source, { orderNo: 'fail-b' });
    const lines = h.lines.length;

    expect(
      (await pollOnce(sqs.client, withBackoff.source, h.handler(failing, { backoff: backoff({ sqs: sqs.client, ...long() }) })))?.retained,
    ).toEqual([a]);
    expect((await pollOnce(sqs.client, without.source, h.handler(failing)))?.retained).toEqual([b]);

    expect(await receiveAll(sqs.client, withBackoff.source)).toEqual([]);
    expect((await receiveAll(sqs.client, without.source)).map((m) => m.MessageId)).toEqual([b]);
    expect(h.lines[lines]?.backedOff).toBe(1);
    expect(h.lines[lines + 1]?.backedOff).toBeUndefined();
  });

  it('uses the injected jitter: a draw of 0 makes the record visible again at once', async () => {
    const { source } = await queuePair(sqs.client, { visibility: 30 });
    const a = await send(sqs.client, source, { orderNo: 'fail-zero' });
    const handler = h.handler(failing, { backoff: backoff({ sqs: sqs.client, ...long(), random: () => 0 }) });
    expect((await pollOnce(sqs.client, source, handler))?.retained).toEqual([a]);
    // Without the change it would stay hidden for the queue's 30 s.
    expect((await receiveAll(sqs.client, source)).map((m) => m.MessageId)).toEqual([a]);
  });

  it('changes 12 records in two ChangeMessageVisibilityBatch calls, and leaves acknowledged and dead-lettered ones alone', async () => {
    const { client, commands } = countingClient(sqs);
    // Visibility 30 s, not 0: the batch takes two receives, and a second receive must not re-take the first one's messages.
    const { source, dlq } = await queuePair(sqs.client, { visibility: 30 });
    for (let i = 0; i < 12; i++) await send(sqs.client, source, { orderNo: `fail-many-${i}` });
    await send(sqs.client, source, { orderNo: 'ok-many' });
    await send(sqs.client, source, { orderNo: 'perm-many' });
    const lines = h.lines.length;
    const handler = h.handler(failing, {
      backoff: backoff({ sqs: client, ...long() }),
      deadLetter: deadLetter({ sqs: client, dlqUrl: dlq.url }),
    });
    const report = await pollOnce(sqs.client, source, handler, 14);
    expect(report?.retained).toHaveLength(12);
    expect(commands.filter((c) => c === 'ChangeMessageVisibilityBatchCommand')).toHaveLength(2);
    expect(h.lines[lines]?.sqsErrors).toBeUndefined();
    expect(h.lines[lines]?.backedOff).toBe(12);
    expect(h.lines[lines]?.counts['dead-lettered']).toBe(1);
    expect(await receiveAll(sqs.client, dlq)).toHaveLength(1);
    client.destroy();
  });

  it('never fails the batch when the visibility change fails: the record comes back as without backoff', async () => {
    const { source } = await queuePair(sqs.client, { visibility: 0 });
    const a = await send(sqs.client, source, { orderNo: 'fail-broken' });
    const lines = h.lines.length;
    const handler = h.handler(failing, {
      backoff: backoff({ sqs: sqs.client, queueUrl: () => source.url.replace(/[^/]+$/, 'no-such-queue'), ...long() }),
    });
    const report = await pollOnce(sqs.client, source, handler);
    expect(report?.outcome).toBe('partial');
    expect(report?.retained).toEqual([a]);
    expect(h.lines[lines]?.backedOff).toBe(0);
    expect(h.lines[lines]?.sqsErrors?.[0]).toMatch(/ChangeMessageVisibilityBatch/);
    expect((await receiveAll(sqs.client, source)).map((m) => m.MessageId)).toEqual([a]);
  });
});
