/**
 * Middy's early timeout (on by default in real Lambda) fires while records
 * are still running: those keep their claims until the lease passes (the
 * handler may still finish), records not yet started are released, and no
 * record starts after the batch was answered.
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { eachRecord, jsonBody, sqsIdempotency } from '../../../src/index.js';
import { lambdaContext, sqsEvent } from '../../../src/testing/index.js';
import { failedIds, harness, order } from './harness.js';

describe('sqsIdempotency with Middy early timeout', () => {
  it('keeps the running record’s claim, releases the unstarted one, starts nothing afterwards', async () => {
    const h = await harness();
    const started: string[] = [];
    // The running record waits for this gate, not for a fixed time: on a loaded machine a timed
    // handler could finish before the test looks at its claim.
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const slow = order('to-slow');
    const next = order('to-next');
    const handler = middy<SQSEvent, SQSBatchResponse>({ timeoutEarlyInMillis: 100 })
      .use(
        sqsIdempotency({
          store: h.store,
          consumer: 'test',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: (l) => h.lines.push(l),
          safetyMarginMs: 0,
        }),
      )
      .handler(
        eachRecord(
          async (_r, { key }) => {
            started.push(key);
            await gate;
          },
          { concurrency: 1 },
        ),
      );
    const context = lambdaContext({ functionName: 'fn', timeoutMs: 250 }); // real time: timeout fires at ~150 ms
    const response = await handler(sqsEvent([slow, next]), context);
    expect(failedIds(response).sort()).toEqual([slow.messageId, next.messageId].sort());
    expect((await h.store.get(h.store.recordId('test', 'to-slow')))?.status).toBe('IN_PROGRESS');
    expect(await h.store.get(h.store.recordId('test', 'to-next'))).toBeUndefined();
    openGate(); // the abandoned handler finishes in the background
    // It still owns its claim, so its fenced completion lands; a redelivery is then a duplicate.
    await vi.waitFor(async () => expect((await h.store.get(h.store.recordId('test', 'to-slow')))?.status).toBe('COMPLETED'), {
      timeout: 5_000,
    });
    expect(started).toEqual(['to-slow']);
  });
});
