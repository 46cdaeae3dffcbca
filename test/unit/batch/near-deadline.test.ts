/**
 * The batch log line warns, once, when the batch is answered within 100 ms
 * of the invocation's deadline: the runtime may then time out before it has
 * sent the response, and the whole batch comes back. A hung handler under
 * Middy's default early timeout (5 ms) is the usual way there.
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eachRecord, jsonBody, sqsIdempotency } from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import { lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

function build(fn: RecordHandler, plugin?: { timeoutEarlyInMillis: number }) {
  const lines: BatchLogLine[] = [];
  const handler = middy<SQSEvent, SQSBatchResponse>(plugin)
    .use(
      sqsIdempotency({
        store: new MemoryIdempotencyStore(),
        consumer: 'payments',
        key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
        logger: (line) => lines.push(line),
        safetyMarginMs: 0,
      }),
    )
    .handler(eachRecord(fn));
  return { handler, lines };
}

const batch = () => sqsEvent([sqsRecord({ body: { orderNo: 'o-1' } }), sqsRecord({ body: { orderNo: 'o-2' } })]);
const hung: RecordHandler = () => new Promise<never>(() => {});
const nearDeadline = (line: BatchLogLine | undefined) => (line?.warnings ?? []).filter((w) => w.includes('before the deadline'));

describe('the batch log line near the deadline', () => {
  it('a hung handler answered by Middy’s default early timeout (5 ms before): the line warns once, naming timeoutEarlyInMillis', async () => {
    const { handler, lines } = build(hung);
    const response = await handler(batch(), lambdaContext({ timeoutMs: 300 }));
    expect(response.batchItemFailures).toHaveLength(2);
    expect(lines).toHaveLength(1);
    const line = lines[0];
    expect(line?.level).toBe('WARN');
    expect(nearDeadline(line)).toHaveLength(1);
    expect(line?.warnings).toHaveLength(1);
    expect(line?.warnings?.[0]).toMatch(/^answered \d+ ms before the deadline; .*timeoutEarlyInMillis/);
  });

  it('the same hung handler with middy({ timeoutEarlyInMillis: 250 }): answered with time to spare, no warning', async () => {
    const { handler, lines } = build(hung, { timeoutEarlyInMillis: 250 });
    const response = await handler(batch(), lambdaContext({ timeoutMs: 400 }));
    expect(response.batchItemFailures).toHaveLength(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty('warnings');
  });

  it('names the time that was left (read when the line is built)', async () => {
    const clock = new ManualClock(1_000_000);
    const { handler, lines } = build(async () => {
      clock.advance(4_980); // each of the two records: 40 ms of 10 s left
    });
    const response = await handler(batch(), lambdaContext({ timeoutMs: 10_000, clock }));
    expect(response.batchItemFailures).toEqual([]);
    expect(lines[0]?.level).toBe('WARN');
    expect(lines[0]?.warnings).toEqual([expect.stringMatching(/^answered 40 ms before the deadline; /)]);
  });

  it('a batch answered with ample time, or with no deadline known, carries no warning', async () => {
    const clock = new ManualClock(1_000_000);
    const { handler, lines } = build(async () => {
      clock.advance(4_900); // each of the two records: 200 ms of 10 s left
    });
    await handler(batch(), lambdaContext({ timeoutMs: 10_000, clock }));
    await handler(batch(), {} as never);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line.level).toBe('INFO');
      expect(line).not.toHaveProperty('warnings');
    }
  });
});
