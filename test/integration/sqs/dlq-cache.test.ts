/**
 * Issue 34 item 5: the DLQ found through a queue's redrive policy is cached
 * for a bounded time (DLQ_LOOKUP_TTL_MS), so a changed redrive policy takes
 * effect without a cold start. Against fauxqs, with a manual clock.
 */
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DLQ_LOOKUP_TTL_MS, sendToDlq } from '../../../src/sources/sqs/dlq.js';
import { ManualClock, sqsRecord } from '../../../src/testing/index.js';
import { startLocalSqs, type LocalSqs } from '../../../scripts/local/sqs-server.js';
import { createQueue, queuePair, receiveAll } from './sqs-queues.js';

let sqs: LocalSqs;
beforeAll(async () => {
  sqs = await startLocalSqs();
});
afterAll(async () => sqs?.stop());

describe('the DLQ address found through the redrive policy', () => {
  it('is reused within its lifetime and looked up again after it, so a changed redrive policy takes effect without a cold start', async () => {
    const { source, dlq: first } = await queuePair(sqs.client);
    const second = await createQueue(sqs.client, 'dlq2');
    const clock = new ManualClock(1_000_000);
    const settings = { sqs: sqs.client, clock };
    const deadLetter = async (n: number) => {
      const record = sqsRecord({ body: `perm-${n}`, queueArn: source.arn });
      const result = await sendToDlq(
        [{ record, outcome: { kind: 'failed', messageId: record.messageId, key: `perm-${n}`, error: new Error('permanent') } }],
        'c',
        settings,
      );
      expect(result.errors).toEqual([]);
    };
    await deadLetter(1);
    await sqs.client.send(
      new SetQueueAttributesCommand({
        QueueUrl: source.url,
        Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: second.arn, maxReceiveCount: 50 }) },
      }),
    );
    clock.advance(DLQ_LOOKUP_TTL_MS - 1);
    await deadLetter(2); // still the cached address
    clock.advance(1);
    await deadLetter(3); // looked up again: the new policy's DLQ
    const bodies = async (queue: typeof first) => (await receiveAll(sqs.client, queue)).map((m) => m.Body).sort();
    expect({ first: await bodies(first), second: await bodies(second), ttlMinutes: DLQ_LOOKUP_TTL_MS / 60_000 }).toEqual({
      first: ['perm-1', 'perm-2'],
      second: ['perm-3'],
      ttlMinutes: 5,
    });
  });
});
