/**
 * Middy's early timeout (`timeoutEarlyInMillis`) aborts the signal it hands
 * the handler; `eachRecord` passes it on: a running record's
 * `RecordContext.signal` aborts then (with or without a lease heartbeat), and
 * no record starts afterwards. Middy 7 and Middy 6; the same for
 * `eventBridgeHandler`'s `EventContext.signal`.
 */
import middy from '@middy/core';
import type { Context, EventBridgeEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import middy6 from 'middy-core-6';
import { describe, expect, it } from 'vitest';
import { claim, eachRecord, eventBridgeIdempotency, eventBridgeHandler, jsonBody, sqsIdempotency } from '../../../src/index.js';
import { eventBridgeEvent, lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

const cores = { 'Middy 7': middy, 'Middy 6': middy6 } as const;
const strategies = { default: undefined, 'claim({ heartbeat: true })': claim({ heartbeat: true }) } as const;

describe.each(Object.entries(cores))('%s, timeoutEarlyInMillis', (_name, core) => {
  it.each(Object.entries(strategies))(
    'eachRecord, %s: the running record’s signal aborts; the next record never starts',
    async (_s, strategy) => {
      const started: string[] = [];
      const signals: AbortSignal[] = [];
      const handler = (core as typeof middy)<SQSEvent, SQSBatchResponse>({ timeoutEarlyInMillis: 100 })
        .use(
          sqsIdempotency({
            store: new MemoryIdempotencyStore(),
            key: (r) => jsonBody<{ k: string }>(r).k,
            logger: false,
            safetyMarginMs: 0,
            ...(strategy === undefined ? {} : { strategy }),
          }),
        )
        .handler(
          eachRecord(
            async (record, { signal }) => {
              started.push(record.messageId);
              signals.push(signal);
              await aborted(signal); // never returns unless the signal aborts
            },
            { concurrency: 1 },
          ),
        );
      const records = ['a', 'b'].map((k) => sqsRecord({ messageId: `m-${k}`, body: { k } }));
      // Real time: Middy answers 100 ms before the 300 ms timeout.
      const response = await handler(sqsEvent(records), lambdaContext({ timeoutMs: 300 }));
      expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m-a', 'm-b']);
      expect(started).toEqual(['m-a']);
      expect(signals.map((s) => s.aborted)).toEqual([true]);
    },
  );

  it('eventBridgeHandler: the event’s signal aborts', async () => {
    let signal: AbortSignal | undefined;
    const handler = (core as typeof middy)<EventBridgeEvent<string, unknown>, unknown, Error, Context>({ timeoutEarlyInMillis: 100 })
      .use(eventBridgeIdempotency({ store: new MemoryIdempotencyStore(), key: (e) => e.id, logger: false }))
      .handler(
        eventBridgeHandler(async (_event, ctx) => {
          signal = ctx.signal;
          await aborted(ctx.signal);
        }),
      );
    await handler(eventBridgeEvent({ detailType: 'Ping', source: 'test', detail: {} }), lambdaContext({ timeoutMs: 300 })).catch(
      () => undefined,
    );
    expect(signal?.aborted).toBe(true);
  });
});
