/**
 * Permanent failures straight to the DLQ, against fauxqs (standard and FIFO)
 * and DynamoDB Local: the record is copied to the DLQ with our attributes,
 * acknowledged only once SQS took the copy, and comes back as before when
 * the send fails.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoff, deadLetter, sqsIdempotency, PermanentError, transaction } from '../../../src/index.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import { startLocalSqs, type LocalSqs } from '../../../scripts/local/sqs-server.js';
import { harness, failedIds, type Harness } from './harness.js';
import { countingClient, pollOnce, queuePair, receiveAll, send } from './sqs-queues.js';

let sqs: LocalSqs;
let h: Harness;
beforeAll(async () => {
  sqs = await startLocalSqs();
  h = await harness();
});
afterAll(async () => sqs?.stop());

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Permanent for `perm-*`, transient for `fail-*`, fine otherwise. */
const handlerFn: RecordHandler = (_record, { key }) => {
  if (key.startsWith('perm-')) throw new PermanentError(`Unknown template for ${key}.`);
  if (key.startsWith('fail-')) throw new Error('downstream timeout');
  h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
};

describe('deadLetter on a standard queue', () => {
  it('sends a PermanentError record to the redrive DLQ with its attributes and acknowledges it; the others are unaffected', async () => {
    const { source, dlq } = await queuePair(sqs.client);
    const permId = await send(
      sqs.client,
      source,
      { orderNo: 'perm-1' },
      { attributes: { tenant: { DataType: 'String', StringValue: 'acme' } } },
    );
    const failId = await send(sqs.client, source, { orderNo: 'fail-1' });
    await send(sqs.client, source, { orderNo: 'ok-1' });
    const lines = h.lines.length;
    const handler = h.handler(handlerFn, { deadLetter: deadLetter({ sqs: sqs.client }) });
    const report = await pollOnce(sqs.client, source, handler);

    expect(report?.outcome).toBe('partial');
    expect(report && 'response' in report ? failedIds(report.response as never) : []).toEqual([failId]);
    expect(report?.deleted).toContain(permId);
    expect(h.effects.get('ok-1')).toBe(1);
    const [copy, ...others] = await receiveAll(sqs.client, dlq);
    expect(others).toEqual([]);
    expect(copy?.Body).toBe(JSON.stringify({ orderNo: 'perm-1' }));
    const attr = (name: string) => copy?.MessageAttributes?.[name]?.StringValue;
    expect(attr('eo-reason')).toBe('Unknown template for perm-1.');
    expect(attr('eo-error-name')).toBe('PermanentError');
    expect(attr('eo-consumer')).toBe('test');
    expect(attr('eo-key-hash')).toBe(sha('perm-1'));
    expect(attr('eo-message-id')).toBe(permId);
    expect(attr('tenant')).toBe('acme');
    const line = h.lines.slice(lines).at(-1);
    expect(line?.counts['dead-lettered']).toBe(1);
    expect(line?.records.find((r) => r.messageId === permId)?.outcome).toBe('dead-lettered');
    // The claim was released: a redrive from the DLQ runs the record again.
    expect(await h.store.get(h.store.recordId('test', 'perm-1'))).toBeUndefined();
  });

  it('sends an invalid record and an error isPermanent names; a throwing predicate counts as "not permanent"', async () => {
    const { source, dlq } = await queuePair(sqs.client);
    const badId = await send(sqs.client, source, '{not json');
    const namedId = await send(sqs.client, source, { orderNo: 'fail-named' });
    const handler = h.handler(
      (_r, { key }) => {
        throw key === 'fail-named' ? new RangeError('no such account') : new Error('other');
      },
      { deadLetter: deadLetter({ sqs: sqs.client, isPermanent: (e) => e instanceof RangeError }) },
    );
    const report = await pollOnce(sqs.client, source, handler);
    expect([...(report?.deleted ?? [])].sort()).toEqual([badId, namedId].sort());
    const copies = await receiveAll(sqs.client, dlq);
    const names = copies.map((m) => m.MessageAttributes?.['eo-error-name']?.StringValue).sort();
    expect(names).toEqual(['BodyParseError', 'RangeError']);
    // No key could be read from the bad body: no key hash, never a made-up one.
    expect(copies.find((m) => m.Body === '{not json')?.MessageAttributes?.['eo-key-hash']).toBeUndefined();

    const again = await send(sqs.client, source, { orderNo: 'fail-throws' });
    const throwing = h.handler(
      () => {
        throw new RangeError('x');
      },
      {
        deadLetter: deadLetter({
          sqs: sqs.client,
          isPermanent: () => {
            throw new Error('predicate bug');
          },
        }),
      },
    );
    expect((await pollOnce(sqs.client, source, throwing))?.retained).toEqual([again]);
  });

  it('keeps a record whose DLQ send fails: it comes back, it is not lost', async () => {
    const { source } = await queuePair(sqs.client, { visibility: 0 });
    const permId = await send(sqs.client, source, { orderNo: 'perm-unsent' });
    const lines = h.lines.length;
    const missing = source.url.replace(/[^/]+$/, 'no-such-queue');
    const handler = h.handler(handlerFn, { deadLetter: deadLetter({ sqs: sqs.client, dlqUrl: missing }) });
    const report = await pollOnce(sqs.client, source, handler);
    expect(report?.retained).toEqual([permId]);
    const line = h.lines.slice(lines).at(-1);
    expect(line?.counts.failed).toBe(1);
    expect(line?.counts['dead-lettered']).toBe(0);
    expect(line?.sqsErrors?.[0]).toMatch(/SendMessageBatch/);
    // Still on the queue: the next receive gets it again.
    expect((await receiveAll(sqs.client, source)).map((m) => m.MessageId)).toEqual([permId]);
  });

  it('logs a clear error and retries as before when the queue has no redrive policy and no dlqUrl', async () => {
    const { source } = await queuePair(sqs.client, { redrive: false });
    const permId = await send(sqs.client, source, { orderNo: 'perm-nodlq' });
    const lines = h.lines.length;
    const report = await pollOnce(sqs.client, source, h.handler(handlerFn, { deadLetter: deadLetter({ sqs: sqs.client }) }));
    expect(report?.retained).toEqual([permId]);
    expect(h.lines.slice(lines).at(-1)?.sqsErrors?.join()).toMatch(/no redrive policy/);
  });

  it('looks the redrive policy up once per queue per container (within the 5 minutes the address is cached)', async () => {
    const { client, commands } = countingClient(sqs);
    const { source, dlq } = await queuePair(sqs.client);
    const handler = h.handler(handlerFn, { deadLetter: deadLetter({ sqs: client }) });
    for (const n of [1, 2]) {
      await send(sqs.client, source, { orderNo: `perm-cache-${n}` });
      await pollOnce(sqs.client, source, handler);
    }
    expect(commands.filter((c) => c === 'GetQueueAttributesCommand')).toHaveLength(1);
    expect(commands.filter((c) => c === 'SendMessageBatchCommand')).toHaveLength(2);
    expect(await receiveAll(sqs.client, dlq)).toHaveLength(2);
    client.destroy();
  });

  it('sends more than 10 permanent failures in chunks of 10', async () => {
    const { client, commands } = countingClient(sqs);
    const { source, dlq } = await queuePair(sqs.client);
    for (let i = 0; i < 12; i++) await send(sqs.client, source, { orderNo: `perm-many-${i}` });
    const report = await pollOnce(
      sqs.client,
      source,
      h.handler(handlerFn, { deadLetter: deadLetter({ sqs: client, dlqUrl: dlq.url }) }),
      12,
    );
    expect(report?.deleted).toHaveLength(12);
    expect(commands.filter((c) => c === 'SendMessageBatchCommand')).toHaveLength(2);
    const received = [...(await receiveAll(sqs.client, dlq)), ...(await receiveAll(sqs.client, dlq))];
    expect(received).toHaveLength(12);
    client.destroy();
  });
});

describe('deadLetter on a FIFO queue', () => {
  it('keeps the message group and takes the deduplication id from the message; later records of the group come back', async () => {
    const { source, dlq } = await queuePair(sqs.client, { fifo: true, visibility: 0 });
    const permId = await send(sqs.client, source, { orderNo: 'perm-fifo' }, { group: 'g-1' });
    const nextId = await send(sqs.client, source, { orderNo: 'ok-fifo-next' }, { group: 'g-1' });
    const otherId = await send(sqs.client, source, { orderNo: 'ok-fifo-other' }, { group: 'g-2' });
    const report = await pollOnce(sqs.client, source, h.handler(handlerFn, { deadLetter: deadLetter({ sqs: sqs.client }) }));
    expect(report?.deleted).toContain(permId);
    expect(report?.deleted).not.toContain(nextId);
    // The group's next record was not acknowledged: it is still on the queue, now first in its group.
    expect((await receiveAll(sqs.client, source)).map((m) => m.MessageId)).toContain(nextId);
    expect(report?.deleted).toContain(otherId);
    const [copy] = await receiveAll(sqs.client, dlq);
    expect(copy?.Attributes?.['MessageGroupId']).toBe('g-1');
    expect(copy?.Attributes?.['MessageDeduplicationId']).toBe(permId);
    expect(copy?.MessageAttributes?.['eo-error-name']?.StringValue).toBe('PermanentError');
  });
});

describe('deadLetter with the transaction strategy', () => {
  it('dead-letters a PermanentError thrown before anything was committed', async () => {
    const { source, dlq } = await queuePair(sqs.client);
    const permId = await send(sqs.client, source, { orderNo: 'perm-tx' });
    const handler = h.handler(handlerFn, { strategy: transaction(), deadLetter: deadLetter({ sqs: sqs.client }) });
    expect((await pollOnce(sqs.client, source, handler))?.deleted).toEqual([permId]);
    expect(await receiveAll(sqs.client, dlq)).toHaveLength(1);
    expect(await h.store.get(h.store.recordId('test', 'perm-tx'))).toBeUndefined();
  });
});

describe('option checks', () => {
  it('names the plug-in option when it is wrong', () => {
    const sqs_ = sqs.client;
    expect(() => deadLetter({ sqs: sqs_, dlq: 'x' } as never)).toThrow('deadLetter: unknown option "dlq"');
    expect(() => deadLetter({ sqs: sqs_, dlqUrl: '' })).toThrow('deadLetter: option "dlqUrl" must be a non-empty string');
    expect(() => deadLetter({ sqs: {} as never })).toThrow('deadLetter: option "sqs" must be an SQSClient');
    expect(() => backoff({ sqs: sqs_, baseSeconds: 0 })).toThrow('backoff: option "baseSeconds" must be whole seconds');
    expect(() => backoff({ sqs: sqs_, baseSeconds: 60, maxSeconds: 30 })).toThrow(TypeError);
    expect(() => backoff({ sqs: sqs_, maxSeconds: 43_201 })).toThrow('backoff: option "maxSeconds"');
    // @ts-expect-error the client is required.
    expect(() => backoff({})).toThrow('backoff: option "sqs" is required');
  });

  it('refuses the options of before the plug-ins, naming them', () => {
    const store = h.store;
    const key = () => 'k';
    expect(() => sqsIdempotency({ store, key, permanentFailures: {} } as never)).toThrow('unknown option "permanentFailures"');
    expect(() => sqsIdempotency({ store, key, sqs: sqs.client } as never)).toThrow('unknown option "sqs"');
    expect(() => sqsIdempotency({ store, key, queueUrl: () => 'u' } as never)).toThrow('unknown option "queueUrl"');
    expect(() => sqsIdempotency({ store, key, backoff: {} as never })).toThrow('option "backoff" must be what backoff() returns');
    expect(() => sqsIdempotency({ store, key, deadLetter: deadLetter({ sqs: sqs.client }) })).not.toThrow();
  });
});
