/**
 * Red-team acceptance: the README promises one structured log line per
 * batch/event, with the event's outcome. eventBridgeIdempotency logs
 * completed, duplicate (replay) and failed events, but an event refused in
 * `before` (no key: MissingKeyError; another payload: PayloadMismatchError;
 * a live claim elsewhere: IdempotencyInProgressError) is thrown without a
 * line, so the `invalid` and `in-progress` outcomes never reach the logger
 * (the SQS middleware logs them).
 *
 * Fixed in src/sources/eventbridge/lifecycle.ts (claimOrReplay/before): the
 * `invalid` / `in-progress` outcome is logged before the error is thrown.
 */
import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { eventBridgeIdempotency } from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { Deferred, eventBridgeEvent, lambdaContext } from '../../../src/testing/index.js';
import { harness } from '../sqs/harness.js';

describe('acceptance: an EventBridge event refused before the handler is logged', () => {
  it('missing key, in progress elsewhere and payload mismatch each get a line', async () => {
    const { store } = await harness();
    const lines: BatchLogLine[] = [];
    const started = new Deferred();
    const gate = new Deferred();
    const handler = middy()
      .use(eventBridgeIdempotency({ store, consumer: 'c', key: (e) => (e.detail as { k?: string }).k, logger: (l) => lines.push(l) }))
      .handler(async (e) => {
        if ((e.detail as { slow?: boolean }).slow === true) {
          started.resolve();
          await gate.promise;
        }
        return 'ok';
      });
    const event = (detail: object) => eventBridgeEvent({ detailType: 'T', source: 's', detail });
    await expect(handler(event({}), lambdaContext())).rejects.toThrow();
    const first = handler(event({ k: 'a', slow: true }), lambdaContext());
    await started.promise;
    await expect(handler(event({ k: 'a', slow: true }), lambdaContext())).rejects.toThrow();
    gate.resolve();
    await first;
    await expect(handler(event({ k: 'a', other: 1 }), lambdaContext())).rejects.toThrow();
    expect(lines.map((l) => l.records[0]?.outcome)).toEqual(['invalid', 'in-progress', 'completed', 'invalid']);
  });
});
