/**
 * Red-team combinations for `strategy: claim({ pipelined: true })` on DynamoDB Local: a handler
 * that runs `eachRecord` twice (one after the other, or side by side) over a
 * batch with a stored duplicate, two copies of a key and a failing record;
 * a handler that throws before `eachRecord`; with `deadLetter`. Each
 * checks: no effect twice, nothing acknowledged that neither ran nor was done
 * before, and the metrics document counts what the log line says.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { deadLetter, eachRecord, emfMetrics, jsonBody, PermanentError, sqsIdempotency, claim } from '../../../src/index.js';
import { outcomeMetricNames, type EmfDocument } from '../../../src/observe/emf.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { failedIds, harness, order, type Harness } from './harness.js';

const dlq = () => {
  const sent: string[] = [];
  const sqs = {
    send: async (command: { input: { Entries?: Array<{ Id: string; MessageBody: string }> } }) => {
      const entries = command.input.Entries ?? [];
      sent.push(...entries.map((e) => e.MessageBody));
      return { Successful: entries.map((e) => ({ Id: e.Id, MessageId: `dlq-${e.Id}`, MD5OfMessageBody: '' })), Failed: [] };
    },
  } as unknown as SQSClient;
  return { sqs, sent };
};

function build(h: Harness, inner: (event: SQSEvent, context: Parameters<ReturnType<typeof eachRecord>>[1]) => Promise<SQSBatchResponse>) {
  const docs: EmfDocument[] = [];
  const { sqs, sent } = dlq();
  const handler = middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store: h.store,
        consumer: 'test',
        key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
        strategy: claim({ pipelined: true }),
        logger: (line) => h.lines.push(line),
        metrics: emfMetrics({ emit: (d) => docs.push(d) }),
        deadLetter: deadLetter({ sqs, dlqUrl: 'https://sqs.local/dlq' }),
      }),
    )
    .handler(inner);
  return { handler, docs, sent };
}

function metricsMatchLog(h: Harness, docs: readonly EmfDocument[]): void {
  const line = h.lines.at(-1);
  for (const [kind, name] of Object.entries(outcomeMetricNames)) {
    expect(docs.at(-1)?.[name], name).toBe((line?.records ?? []).filter((r) => r.outcome === kind).length);
  }
}

const perRecord =
  (h: Harness): RecordHandler =>
  async (_record, { key }) => {
    if (key.startsWith('perm-')) throw new PermanentError(`gone ${key}`);
    if (key.startsWith('fail-')) throw new Error('timeout');
    h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
  };

describe('claims "pipelined" in combination', () => {
  for (const mode of ['one after the other', 'side by side'] as const) {
    it(`eachRecord run twice (${mode}): each record decided once, no effect twice`, async () => {
      const h = await harness();
      await h.handler()(sqsEvent([order('p-done')]), h.context());
      const fn = perRecord(h);
      const each = eachRecord(fn, { concurrency: 3 });
      const { handler, docs, sent } = build(h, async (event, context) => {
        if (mode === 'side by side') {
          const [a] = await Promise.all([each(event, context), each(event, context)]);
          return a;
        }
        await each(event, context);
        return each(event, context);
      });
      const records = [order('p-a'), order('p-done'), order('p-a'), order('fail-p'), order('perm-p'), order('p-b')];
      const response = await handler(sqsEvent(records), h.context());
      const line = h.lines.at(-1);
      const outcome = (i: number) => line?.records.find((r) => r.messageId === records[i]?.messageId)?.outcome;
      expect(h.effects.get('p-a')).toBe(1);
      expect(h.effects.get('p-b')).toBe(1);
      expect(h.effects.get('p-done')).toBe(1); // from the first batch only
      expect(outcome(0)).toBe('completed');
      expect(outcome(1)).toBe('duplicate');
      expect(outcome(3)).toBe('failed');
      expect(outcome(4)).toBe('dead-lettered');
      expect(outcome(5)).toBe('completed');
      // The second copy of p-a: a duplicate of its first copy, or (side by side, reached while it ran) sent back.
      expect(['duplicate', 'not-started']).toContain(outcome(2));
      const back = failedIds(response);
      expect(back).toContain(records[3]?.messageId);
      for (const id of back)
        expect(line?.records.find((r) => r.messageId === id)?.outcome).not.toMatch(/completed|duplicate|dead-lettered/);
      expect(sent).toEqual([records[4]?.body]);
      metricsMatchLog(h, docs);
    });
  }

  it('a handler that throws before eachRecord: nothing ran, nothing dead-lettered; every claim released', async () => {
    const h = await harness();
    const { handler, docs, sent } = build(h, async () => {
      throw new Error('config missing');
    });
    const records = [order('q-a'), order('perm-q'), order('q-a')];
    // The error becomes the batch's answer: every record comes back.
    expect(failedIds(await handler(sqsEvent(records), h.context()))).toEqual(records.map((r) => r.messageId));
    expect(sent).toEqual([]);
    expect(h.lines.at(-1)?.counts.failed).toBe(2);
    expect(await h.store.get(h.store.recordId('test', 'q-a'))).toBeUndefined();
    expect(await h.store.get(h.store.recordId('test', 'perm-q'))).toBeUndefined();
    metricsMatchLog(h, docs);
  });
});
