/**
 * A custom store whose `recordId` throws an error other than an
 * `InvalidRecordError` (a bug, a lookup that failed) for one record of a
 * batch: the other records' claims were already on their way. That record
 * fails alone and comes back; the others run and are completed, never left
 * IN_PROGRESS until their lease passes. Both request patterns.
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eachRecord, jsonBody, sqsIdempotency, type IdempotencyStore } from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

/** The memory store, but `recordId` throws a plain `Error` for the key `boom`. */
function brokenFor(inner: MemoryIdempotencyStore): IdempotencyStore {
  return {
    recordId: (consumer, key) => {
      if (key === 'boom') throw new Error('the id service is down');
      return inner.recordId(consumer, key);
    },
    claim: (input) => inner.claim(input),
    claimMany: (inputs) => inner.claimMany(inputs),
    complete: (input) => inner.complete(input),
    completeMany: (inputs) => inner.completeMany(inputs),
    release: (input) => inner.release(input),
    get: (id) => inner.get(id),
  };
}

describe.each([128, 1769])('a store whose recordId throws for one record, at %i MB', (memoryLimitInMB) => {
  it('that record fails alone; the claims sent before it are completed, not left to their lease', async () => {
    const inner = new MemoryIdempotencyStore({ clock: new ManualClock() });
    const effects: string[] = [];
    const lines: BatchLogLine[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store: brokenFor(inner),
          consumer: 'c',
          key: (r) => jsonBody<{ k: string }>(r).k,
          logger: (line) => lines.push(line),
        }),
      )
      .handler(eachRecord(async (r) => void effects.push(jsonBody<{ k: string }>(r).k)));
    const records = ['a', 'b', 'boom', 'c'].map((k) => sqsRecord({ messageId: `m-${k}`, body: { k } }));
    const response = await handler(sqsEvent(records), lambdaContext({ memoryLimitInMB }));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-boom' }]);
    expect(effects.sort()).toEqual(['a', 'b', 'c']);
    for (const k of ['a', 'b', 'c']) expect((await inner.get(inner.recordId('c', k)))?.status).toBe('COMPLETED');
    const boom = lines[0]?.records.find((r) => r.messageId === 'm-boom');
    expect(boom).toMatchObject({ outcome: 'failed', error: { message: 'the id service is down' } });
  });
});
