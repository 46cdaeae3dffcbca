/**
 * A middleware after `eventBridgeIdempotency` answers early: Middy then skips
 * our `after` and `onError`. What they would have done is done before the
 * response goes out: the claim is released when the handler never ran or
 * threw (a redelivery runs at once, not after the lease), completed with the
 * handler's result when it returned, the lease heartbeat stops, the event is
 * logged, and no timer is left. Middy 7 and Middy 6; a `before` that returns
 * a value or sets `request.earlyResponse`, an `after`, an `onError`. One batch
 * source behind the shared batch middleware (Kafka) for the same case.
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import middy6 from 'middy-core-6';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  claim,
  eachRecord,
  eventBridgeIdempotency,
  kafkaIdempotency,
  kafkaValue,
  type IdempotencyStore,
  type KafkaBatchResponse,
  type KafkaEvent,
} from '../../../../src/index.js';
import type { BatchLogLine } from '../../../../src/observe/log.js';
import { eventBridgeEvent, kafkaEvent, lambdaContext, ManualClock, MemoryIdempotencyStore } from '../../../../src/testing/index.js';

afterEach(() => {
  vi.useRealTimers();
});

type Paid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;
type Result = { sent: string };
const EARLY: Result = { sent: 'by the later middleware' };
const cores = { 'Middy 7': middy, 'Middy 6': middy6 } as const;
const beforeForms: Record<string, MiddlewareObj<Paid, Result>> = {
  'a before that returns a value': { before: () => EARLY },
  'a before that sets request.earlyResponse': {
    before: (request) => {
      request.earlyResponse = EARLY;
    },
  },
};

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

/** Fake timers, a memory store counting renewals, and the event `o-1`. */
function setup() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  const clock = new ManualClock();
  const inner = new MemoryIdempotencyStore({ clock });
  const lines: BatchLogLine[] = [];
  const { store, renewals } = counting(inner);
  const options = {
    store,
    consumer: 'c',
    key: (e: Paid) => e.detail.orderNo,
    logger: (line: BatchLogLine) => void lines.push(line),
    strategy: claim({ heartbeat: { everyMs: 50 } }),
  };
  const event = eventBridgeEvent({ id: 'ev-1', detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'o-1' }, clock });
  const record = () => inner.get(inner.recordId('c', 'o-1'));
  return { clock, options, renewals, event, lines, record };
}

/** No heartbeat renews anything once the invocation has returned, and no timer of ours is left. */
async function noHeartbeatLeft(renewals: () => number): Promise<void> {
  expect(vi.getTimerCount()).toBe(0);
  const before = renewals();
  await vi.advanceTimersByTimeAsync(1_000);
  expect(renewals()).toBe(before);
}

describe.each(Object.entries(cores))('%s', (_core, core) => {
  describe.each(Object.entries(beforeForms))('a later middleware answers early: %s', (_form, early) => {
    it('the claim is released (an immediate redelivery runs), the heartbeat stops, the event is logged', async () => {
      const { clock, options, renewals, event, lines, record } = setup();
      const ran: string[] = [];
      const body = async (e: Paid): Promise<Result> => {
        ran.push(e.id);
        return { sent: e.detail.orderNo };
      };
      const answered = (core as typeof middy)<Paid, Result>().use(eventBridgeIdempotency<Paid, Result>(options)).use(early).handler(body);
      expect(await answered(event, lambdaContext({ clock }))).toEqual(EARLY);
      expect(ran).toEqual([]);
      expect(await record()).toBeUndefined();
      await noHeartbeatLeft(renewals);
      expect(lines.map((l) => l.records.map((r) => r.outcome))).toEqual([['failed']]);
      expect(lines[0]?.records[0]?.error?.message).toMatch(/answered early/);
      // The redelivery, at once (no lease to wait out): it runs.
      vi.useRealTimers();
      const plain = (core as typeof middy)<Paid, Result>().use(eventBridgeIdempotency<Paid, Result>(options)).handler(body);
      expect(await plain(event, lambdaContext({ clock }))).toEqual({ sent: 'o-1' });
      expect(ran).toEqual(['ev-1']);
      expect((await record())?.status).toBe('COMPLETED');
    });
  });

  it('a later after answers: the handler returned, so the claim is completed with its result', async () => {
    const { clock, options, renewals, event, lines, record } = setup();
    let runs = 0;
    const body = async (): Promise<Result> => ({ sent: `run ${++runs}` });
    const handler = (core as typeof middy)<Paid, Result>()
      .use(eventBridgeIdempotency<Paid, Result>(options))
      .use({ after: () => EARLY })
      .handler(body);
    expect(await handler(event, lambdaContext({ clock }))).toEqual(EARLY);
    expect(await record()).toMatchObject({ status: 'COMPLETED', result: { sent: 'run 1' } });
    await noHeartbeatLeft(renewals);
    expect(lines.map((l) => l.records.map((r) => r.outcome))).toEqual([['completed']]);
    // The redelivery is a duplicate: the stored result, the handler not run again.
    expect(await handler(event, lambdaContext({ clock }))).toEqual({ sent: 'run 1' });
    expect(runs).toBe(1);
  });

  it('a later onError answers: the handler threw, so the claim is released', async () => {
    const { clock, options, renewals, event, lines, record } = setup();
    const handler = (core as typeof middy)<Paid, Result>()
      .use(eventBridgeIdempotency<Paid, Result>(options))
      .use({ onError: () => EARLY })
      .handler(async () => {
        throw new Error('boom');
      });
    expect(await handler(event, lambdaContext({ clock }))).toEqual(EARLY);
    expect(await record()).toBeUndefined();
    await noHeartbeatLeft(renewals);
    expect(lines.map((l) => l.records.map((r) => [r.outcome, r.error?.message]))).toEqual([[['failed', 'boom']]]);
  });

  it('a later onError sets request.earlyResponse to undefined: Middy still rethrows (Lambda retries), the claim is released', async () => {
    const { clock, options, renewals, event, record } = setup();
    const handler = (core as typeof middy)<Paid, Result>()
      .use(eventBridgeIdempotency<Paid, Result>(options))
      .use({
        onError: (request) => {
          request.earlyResponse = undefined;
        },
      })
      .handler(async () => {
        throw new Error('boom');
      });
    await expect(handler(event, lambdaContext({ clock }))).rejects.toThrow('boom');
    expect(await record()).toBeUndefined();
    await noHeartbeatLeft(renewals);
  });
});

describe('a batch source behind the shared batch middleware (Kafka), Middy 7', () => {
  it('a later before answers early: the claims are released, the heartbeat stops', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const clock = new ManualClock();
    const inner = new MemoryIdempotencyStore({ clock });
    const { store, renewals } = counting(inner);
    const ran: number[] = [];
    const handler = middy<KafkaEvent, KafkaBatchResponse>()
      .use(
        kafkaIdempotency({
          store,
          consumer: 'c',
          key: (r) => kafkaValue<{ orderNo: string }>(r).orderNo,
          logger: false,
          strategy: claim({ heartbeat: { everyMs: 50 } }),
        }),
      )
      .use({ before: () => ({ batchItemFailures: [] }) })
      .handler(eachRecord(async (r) => void ran.push(r.offset)));
    const event = kafkaEvent(['o-1', 'o-2'].map((orderNo, i) => ({ offset: i + 1, value: { orderNo } })));
    expect(await handler(event, lambdaContext({ clock }))).toEqual({ batchItemFailures: [] });
    expect(ran).toEqual([]);
    for (const key of ['o-1', 'o-2']) expect(await inner.get(inner.recordId('c', key))).toBeUndefined();
    await noHeartbeatLeft(renewals);
  });
});
