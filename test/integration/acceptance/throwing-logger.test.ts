/**
 * Red-team acceptance: a custom `logger` that throws (a log sink down, a bug
 * in the user's formatter) after the records were settled.
 *
 * Expected: the log line is an observation, not part of the outcome. SQS: the
 * batch response stands (the batch is not failed as a whole, so completed
 * records are not redelivered). EventBridge: the handler's result is returned;
 * today every delivery throws, the replays too, so an event whose effect was
 * applied ends in the async on-failure destination.
 *
 * Fixed: both lifecycles hand the line to `safeLog` (src/observe/log.ts),
 * which reports a throwing logger on console.error and goes on.
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eachRecord, eventBridgeIdempotency, sqsIdempotency } from '../../../src/index.js';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { harness } from '../sqs/harness.js';

const brokenLogger = () => {
  throw new Error('log sink down');
};

describe('acceptance: a logger that throws', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('SQS: one console.error line names the logger error', async () => {
    const h = await harness();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store: h.store, consumer: 'c', key: (r) => r.body, logger: brokenLogger }))
      .handler(eachRecord(() => undefined));
    await handler(sqsEvent([sqsRecord({ body: 'k-1', messageId: 'm-1' })]), h.context());
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]?.[0])).toContain('Error: log sink down');
  });

  it('an async logger that rejects is reported, not left unhandled', async () => {
    const h = await harness();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const handler = middy()
      .use(
        eventBridgeIdempotency({
          store: h.store,
          consumer: 'c',
          key: () => 'k-async',
          logger: async () => Promise.reject(new RangeError('sink full')),
        }),
      )
      .handler(async () => 'done');
    expect(await handler(eventBridgeEvent({ detailType: 'T', source: 's', detail: {} }), lambdaContext())).toBe('done');
    await vi.waitFor(() => expect(errors).toHaveBeenCalledTimes(1));
    expect(String(errors.mock.calls[0]?.[0])).toContain('RangeError: sink full');
  });

  it('SQS: the batch response stands', async () => {
    const h = await harness();
    let effects = 0;
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store: h.store, consumer: 'c', key: (r) => r.body, logger: brokenLogger }))
      .handler(eachRecord(() => void (effects += 1)));
    const response = await handler(sqsEvent([sqsRecord({ body: 'k-1', messageId: 'm-1' })]), h.context());
    expect(response.batchItemFailures).toEqual([]);
    expect(effects).toBe(1);
  });

  it('EventBridge: the result is returned, first delivery and replay', async () => {
    const h = await harness();
    const handler = middy()
      .use(eventBridgeIdempotency({ store: h.store, consumer: 'c', key: () => 'k-1', logger: brokenLogger }))
      .handler(async () => 'done');
    const event = () => eventBridgeEvent({ detailType: 'T', source: 's', detail: {} });
    expect(await handler(event(), lambdaContext())).toBe('done');
    expect(await handler(event(), lambdaContext())).toBe('done');
  });
});
