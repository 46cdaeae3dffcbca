import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sqsRecord } from '../../../src/testing/index.js';
import { receiveBatch, runBatch, startPolling, type SqsTransport } from '../../../scripts/sim/sqs-mapping.js';

/** An asynchronous transport (like the local SQS) over a list; refuses the deletes of `stale` ids. */
function listTransport(bodies: string[], stale = new Set<string>()) {
  const waiting = bodies.map((body, i) => sqsRecord({ body, messageId: `m-${i}` }));
  const deleted: string[] = [];
  const transport: SqsTransport = {
    receive: async (max) => {
      // An empty queue answers after a moment, as a long poll does.
      if (waiting.length === 0) await new Promise((r) => setTimeout(r, 1));
      return waiting.splice(0, max);
    },
    delete: async (records: readonly SQSRecord[]) =>
      records.map((r) => {
        if (stale.has(r.messageId)) return false;
        deleted.push(r.messageId);
        return true;
      }),
  };
  return { transport, deleted, waiting };
}

const failBad = async (event: SQSEvent): Promise<SQSBatchResponse> => ({
  batchItemFailures: event.Records.filter((r) => r.body === 'bad').map((r) => ({ itemIdentifier: r.messageId })),
});

describe('the one SQS event source mapping simulator, over any transport', () => {
  it('receives 10 at a time up to the batch size, and stops at a short answer', async () => {
    const { transport, waiting } = listTransport(Array.from({ length: 25 }, (_, i) => `b${i}`));
    expect(await receiveBatch(transport, 15)).toHaveLength(15);
    expect(await receiveBatch(transport, 15)).toHaveLength(10);
    expect(waiting).toHaveLength(0);
  });

  it('deletes what the response allows, and reports a delete the queue refused', async () => {
    const { transport, deleted } = listTransport(['ok', 'bad', 'late'], new Set(['m-2']));
    const records = await receiveBatch(transport, 10);
    const report = await runBatch(transport, records, Date.now(), { handler: failBad, functionName: 'f', timeoutMs: () => 1000 });
    expect(report).toMatchObject({ outcome: 'partial', deleted: ['m-0'], retained: ['m-1'], deleteRefused: ['m-2'] });
    expect(deleted).toEqual(['m-0']);
  });

  it('a lost ACK deletes nothing; an invalid response fails the whole batch', async () => {
    const lost = listTransport(['ok']);
    const report = await runBatch(lost.transport, await receiveBatch(lost.transport, 10), Date.now(), {
      handler: failBad,
      functionName: 'f',
      timeoutMs: () => 1000,
      loseAck: () => true,
    });
    expect(report).toMatchObject({ outcome: 'succeeded', deleted: [], retained: ['m-0'] });
    expect(lost.deleted).toEqual([]);

    const invalid = listTransport(['ok']);
    const answer = async () => ({ batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] });
    const bad = await runBatch(invalid.transport, await receiveBatch(invalid.transport, 10), Date.now(), {
      handler: answer,
      functionName: 'f',
      timeoutMs: () => 1000,
    });
    expect(bad.outcome).toBe('invalid-response');
    expect(invalid.deleted).toEqual([]);
  });

  it('pollers hand a batch to two invocations when asked, and stop cleanly', async () => {
    const { transport, deleted } = listTransport(['a', 'b']);
    const seen: string[] = [];
    const reports: string[] = [];
    const polling = startPolling({
      transport,
      pollers: 1,
      batchSize: 10,
      functionName: 'f',
      timeoutMs: () => 1000,
      handler: async (event) => void seen.push(...event.Records.map((r) => r.body)),
      deliverTwice: () => true,
      onReport: (_event, report) => void reports.push(report.outcome),
    });
    while (reports.length < 2) await new Promise((r) => setTimeout(r, 1));
    await polling.stop();
    expect(seen.sort()).toEqual(['a', 'a', 'b', 'b']);
    expect(reports).toEqual(['succeeded', 'succeeded']);
    expect(deleted.sort()).toEqual(['m-0', 'm-0', 'm-1', 'm-1']);
    expect(polling.error()).toBeUndefined();
  });
});
