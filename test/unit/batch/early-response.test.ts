/**
 * A middleware after `sqsIdempotency` answers early (its `before` returns a
 * value, or sets `request.earlyResponse`): Middy then skips every `after` and
 * `onError`, ours included. The batch's claims must not be left behind: they
 * are released (a redelivery runs the records at once, not after the lease),
 * the lease heartbeat's timers stop, and nothing of the invocation is left
 * for a later call of `eachRecord` to find. Middy 7 and Middy 6, both forms,
 * both request patterns.
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import middy6 from 'middy-core-6';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, eachRecord, jsonBody, sqsIdempotency, type IdempotencyStore } from '../../../src/index.js';
import { lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

afterEach(() => {
  vi.useRealTimers();
});

const EARLY: SQSBatchResponse = { batchItemFailures: [] };
type Mw = MiddlewareObj<SQSEvent, SQSBatchResponse>;
const forms: Record<string, Mw> = {
  'a before that returns a value': { before: () => EARLY },
  'a before that sets request.earlyResponse': {
    before: (request) => {
      (request as { earlyResponse?: unknown }).earlyResponse = EARLY;
    },
  },
};
const cores = { 'Middy 7': middy, 'Middy 6': middy6 } as const;

/** The memory store, counting renewals. */
function counting(inner: MemoryIdempotencyStore): { store: IdempotencyStore; renewals: () => number } {
  let renewals = 0;
  const store: IdempotencyStore = {
    recordId: (c, k) => inner.recordId(c, k),
    claim: (i) => inner.claim(i),
    claimMany: (i) => inner.claimMany(i),
    complete: (i) => inner.complete(i),
    completeMany: (i) => inner.completeMany(i),
    release: (i) => inner.release(i),
    renew: (i) => {
      renewals += 1;
      return inner.renew(i);
    },
    get: (id) => inner.get(id),
  };
  return { store, renewals: () => renewals };
}

describe.each(Object.entries(cores))('%s', (_core, core) => {
  describe.each(Object.entries(forms))('a later middleware answers early: %s', (_form, early) => {
    it.each([128, 1769])('at %i MB: claims released, no heartbeat left, nothing left for eachRecord to find', async (memoryLimitInMB) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
      const clock = new ManualClock();
      const inner = new MemoryIdempotencyStore({ clock });
      const { store, renewals } = counting(inner);
      const ran: string[] = [];
      const handler = (core as typeof middy)<SQSEvent, SQSBatchResponse>()
        .use(
          sqsIdempotency({
            store,
            consumer: 'c',
            key: (r) => jsonBody<{ k: string }>(r).k,
            logger: false,
            strategy: claim({ heartbeat: { everyMs: 50 } }),
          }),
        )
        .use(early)
        .handler(eachRecord(async (r) => void ran.push(r.messageId)));
      const records = ['a', 'b'].map((k) => sqsRecord({ messageId: `m-${k}`, body: { k }, clock }));
      expect(await handler(sqsEvent(records), lambdaContext({ memoryLimitInMB, clock }))).toEqual(EARLY);
      expect(ran).toEqual([]);
      // The claims are given up, not left to their lease.
      for (const k of ['a', 'b']) expect(await inner.get(inner.recordId('c', k))).toBeUndefined();
      // No heartbeat left renewing them.
      const before = renewals();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(renewals()).toBe(before);
      // Nothing left in module scope: eachRecord alone runs the same records plainly.
      vi.useRealTimers();
      const plain = await eachRecord(async (r) => void ran.push(r.messageId))(sqsEvent(records), lambdaContext());
      expect(plain).toEqual({ batchItemFailures: [] });
      expect(ran).toEqual(['m-a', 'm-b']);
    });
  });
});

describe.each(Object.entries(cores))('%s, a later middleware’s after returns a value', (_core, core) => {
  it('the records eachRecord finished stay completed; no heartbeat is left', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const clock = new ManualClock();
    const inner = new MemoryIdempotencyStore({ clock });
    const { store, renewals } = counting(inner);
    const lines: string[][] = [];
    const handler = (core as typeof middy)<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store,
          consumer: 'c',
          key: (r) => jsonBody<{ k: string }>(r).k,
          logger: (line) => lines.push([...(line.warnings ?? [])]),
          strategy: claim({ heartbeat: { everyMs: 50 } }),
        }),
      )
      .use({ after: () => EARLY })
      .handler(eachRecord(async () => {}));
    const records = ['a', 'b'].map((k) => sqsRecord({ messageId: `m-${k}`, body: { k }, clock }));
    expect(await handler(sqsEvent(records), lambdaContext({ clock }))).toEqual(EARLY);
    for (const k of ['a', 'b']) expect((await inner.get(inner.recordId('c', k)))?.status).toBe('COMPLETED');
    const before = renewals();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(renewals()).toBe(before);
    expect(lines).toEqual([[expect.stringContaining('answered early')]]);
  });
});

describe.each(Object.entries(cores))('%s, a later middleware’s onError sets request.earlyResponse to undefined', (_core, core) => {
  it('Middy still rethrows the error (the batch comes back whole, nothing acknowledged); the claims are released', async () => {
    const inner = new MemoryIdempotencyStore();
    const handler = (core as typeof middy)<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store: inner, consumer: 'c', key: (r) => jsonBody<{ k: string }>(r).k, logger: false }))
      .use({
        onError: (request) => {
          (request as { earlyResponse?: unknown }).earlyResponse = undefined;
        },
      })
      .handler(async () => {
        throw new Error('boom');
      });
    const records = ['a', 'b'].map((k) => sqsRecord({ messageId: `m-${k}`, body: { k } }));
    await expect(handler(sqsEvent(records), lambdaContext())).rejects.toThrow('boom');
    for (const k of ['a', 'b']) expect(await inner.get(inner.recordId('c', k))).toBeUndefined();
  });
});
