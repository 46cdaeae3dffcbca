import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvalidBatchResponseError, SqsQueueSimulator, drain, runEventSourceMapping } from '../../../scripts/sim/index.js';
import { InvocationTimeoutError, SimulatedCrash } from '../../../src/testing/errors.js';
import { ManualClock, abandon, delay, flaky } from '../../../src/testing/index.js';
import type { PollReport, SqsLambdaHandler } from '../../../scripts/sim/index.js';

function setup(): { clock: ManualClock; queue: SqsQueueSimulator; dlq: SqsQueueSimulator } {
  const clock = new ManualClock();
  const dlq = new SqsQueueSimulator({ name: 'work-dlq', clock });
  const queue = new SqsQueueSimulator({ name: 'work', clock, visibilityTimeoutMs: 30_000, maxReceiveCount: 3, deadLetterQueue: dlq });
  return { clock, queue, dlq };
}

const failBodies =
  (bad: string) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => ({
    batchItemFailures: event.Records.filter((r) => r.body.startsWith(bad)).map((r) => ({ itemIdentifier: r.messageId })),
  });

describe('runEventSourceMapping', () => {
  it('invokes with a real SQSEvent and Context and deletes only the records not reported as failed', async () => {
    const { clock, queue } = setup();
    const ok = queue.send('ok-1').messageId;
    const bad = queue.send('bad-1').messageId;
    const ok2 = queue.send('ok-2').messageId;
    let seen: { count: number; fn: string; remaining: number } | undefined;
    const handler: SqsLambdaHandler = async (event, context) => {
      seen = { count: event.Records.length, fn: context.functionName, remaining: context.getRemainingTimeInMillis() };
      return failBodies('bad')(event);
    };
    const report = await runEventSourceMapping({ queue, handler, clock, functionName: 'work-fn', timeoutMs: 5_000 });
    expect(seen).toEqual({ count: 3, fn: 'work-fn', remaining: 5_000 });
    expect(report.outcome).toBe('partial');
    expect(report.deleted).toEqual([ok, ok2]);
    expect(report.retained).toEqual([bad]);
    expect(queue.size()).toBe(1);
    clock.advance(30_000);
    expect(queue.receive().map((r) => [r.messageId, r.attributes.ApproximateReceiveCount])).toEqual([[bad, '2']]);
  });

  it('deletes nothing when the handler throws', async () => {
    const { clock, queue } = setup();
    queue.send('a');
    queue.send('b');
    const report = await runEventSourceMapping({
      queue,
      clock,
      handler: async () => {
        throw new Error('boom');
      },
    });
    expect(report.outcome).toBe('threw');
    expect(report.deleted).toEqual([]);
    expect(report.retained).toHaveLength(2);
    expect(queue.size()).toBe(2);
    expect(queue.stats().deleted).toBe(0);
  });

  const malformed: ReadonlyArray<[string, (event: SQSEvent) => unknown]> = [
    ['an unknown itemIdentifier', () => ({ batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] })],
    ['an empty itemIdentifier', () => ({ batchItemFailures: [{ itemIdentifier: '' }] })],
    ['a null itemIdentifier', () => ({ batchItemFailures: [{ itemIdentifier: null }] })],
    ['a misspelt key', (e) => ({ batchItemFailures: [{ itemIdentifer: e.Records[0]?.messageId }] })],
    ['batchItemFailures not an array', () => ({ batchItemFailures: 'all' })],
    ['a string response', () => 'ok'],
  ];
  it.each(malformed)('treats a response with %s as a complete failure: nothing deleted', async (_name, respond) => {
    const { clock, queue } = setup();
    queue.send('a');
    queue.send('b');
    const handler = (async (event: SQSEvent) => respond(event)) as SqsLambdaHandler;
    const report = await runEventSourceMapping({ queue, handler, clock });
    expect(report.outcome).toBe('invalid-response');
    expect(report.outcome === 'invalid-response' && report.error).toBeInstanceOf(InvalidBatchResponseError);
    expect(report.deleted).toEqual([]);
    expect(queue.size()).toBe(2);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['{}', {}],
    ['an empty list', { batchItemFailures: [] }],
  ])('treats %s as full success: everything deleted', async (_name, response) => {
    const { clock, queue } = setup();
    queue.send('a');
    queue.send('b');
    const report = await runEventSourceMapping({ queue, clock, handler: (async () => response) as SqsLambdaHandler });
    expect(report.outcome).toBe('succeeded');
    expect(report.deleted).toHaveLength(2);
    expect(queue.size()).toBe(0);
  });

  it('deletes the whole batch when ReportBatchItemFailures is off, whatever is returned', async () => {
    const { clock, queue } = setup();
    queue.send('ok');
    queue.send('bad');
    const report = await runEventSourceMapping({ queue, clock, handler: failBodies('bad'), reportBatchItemFailures: false });
    expect(report.deleted).toHaveLength(2);
    expect(queue.size()).toBe(0);
  });

  it('abandons a Middy invocation after before: after and onError never run, nothing is deleted', async () => {
    const { clock, queue } = setup();
    queue.send('a');
    const phases: string[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use({
        before: async () => {
          phases.push('before');
        },
        after: async () => {
          phases.push('after');
        },
        onError: async () => {
          phases.push('onError');
        },
      })
      .handler(async () => {
        phases.push('handler');
        await abandon('killed after the claim');
        phases.push('unreachable');
        return { batchItemFailures: [] };
      });
    const report = await runEventSourceMapping({ queue, clock, handler });
    expect(report.outcome).toBe('crashed');
    expect(report.outcome === 'crashed' && report.error).toBeInstanceOf(SimulatedCrash);
    await delay(5);
    expect(phases).toEqual(['before', 'handler']);
    expect(queue.size()).toBe(1);
    expect(queue.inFlight()).toBe(1);
  });

  it('treats a run longer than the function timeout (by the injected clock) as timed out', async () => {
    const { clock, queue } = setup();
    queue.send('slow');
    const handler: SqsLambdaHandler = async () => {
      await delay(6_000, clock);
    };
    const report = await runEventSourceMapping({ queue, clock, handler, timeoutMs: 5_000 });
    expect(report.outcome).toBe('timed-out');
    expect(report.outcome === 'timed-out' && report.error).toBeInstanceOf(InvocationTimeoutError);
    expect(queue.size()).toBe(1);
  });

  it('reports an empty poll without invoking the handler', async () => {
    const { clock, queue } = setup();
    let calls = 0;
    const report = await runEventSourceMapping({
      queue,
      clock,
      handler: async () => {
        calls += 1;
      },
    });
    expect(report.outcome).toBe('empty');
    expect(calls).toBe(0);
  });

  it('rejects bad options with a TypeError naming them', async () => {
    const { queue } = setup();
    const handler: SqsLambdaHandler = async () => undefined;
    await expect(runEventSourceMapping({ queue, handler, batchSize: 0 })).rejects.toThrow(/"batchSize"/);
    const fifo = new SqsQueueSimulator({ name: 'f.fifo' });
    await expect(runEventSourceMapping({ queue: fifo, handler, batchSize: 11 })).rejects.toThrow(/"batchSize"/);
    await expect(runEventSourceMapping({ queue, handler, batchsize: 1 } as never)).rejects.toThrow(/unknown option "batchsize"/);
  });
});

describe('drain', () => {
  it('retries transient failures until every message is processed, advancing the clock past visibility timeouts', async () => {
    const { clock, queue, dlq } = setup();
    for (let i = 0; i < 25; i += 1) queue.send(`m-${i}`);
    const transient = flaky({ failTimes: 1 });
    const processed = new Set<string>();
    const handler: SqsLambdaHandler = async (event) => {
      const failures: { itemIdentifier: string }[] = [];
      for (const record of event.Records) {
        try {
          transient.hit(record.body);
          processed.add(record.body);
        } catch {
          failures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures: failures };
    };
    const progress: PollReport['outcome'][] = [];
    const report = await drain({ queue, clock, handler, onPoll: (r) => progress.push(r.outcome) });
    expect(report.drained).toBe(true);
    expect(processed.size).toBe(25);
    expect(report.delivered).toBe(50);
    expect(report.deleted).toBe(25);
    expect(report.clockAdvancedMs).toBeGreaterThanOrEqual(30_000);
    expect(dlq.size()).toBe(0);
    expect(progress).toHaveLength(report.polls);
  });

  it('sends poison messages to the DLQ after maxReceiveCount and still drains', async () => {
    const { clock, queue, dlq } = setup();
    queue.send('good');
    queue.send('poison');
    const report = await drain({ queue, clock, handler: failBodies('poison') });
    expect(report.drained).toBe(true);
    expect(dlq.messages().map((m) => [m.body, m.receiveCount])).toEqual([['poison', 3]]);
    expect(report.queue.redriven).toBe(1);
    expect(report.outcomes.partial).toBe(3);
  });

  it('runs concurrent pollers that each get a different batch', async () => {
    const { clock, queue } = setup();
    for (let i = 0; i < 40; i += 1) queue.send(`m-${i}`);
    const seen: string[] = [];
    const handler: SqsLambdaHandler = async (event) => {
      await delay(1);
      seen.push(...event.Records.map((r) => r.body));
    };
    const report = await drain({ queue, clock, handler, concurrency: 4, batchSize: 5 });
    expect(report.drained).toBe(true);
    expect(seen).toHaveLength(40);
    expect(new Set(seen).size).toBe(40);
    expect(report.polls).toBe(8);
  });

  it('stops at maxPolls when the queue does not empty', async () => {
    const clock = new ManualClock();
    const queue = new SqsQueueSimulator({ clock });
    queue.send('never');
    const report = await drain({
      queue,
      clock,
      maxPolls: 5,
      handler: async () => {
        throw new Error('down');
      },
    });
    expect(report.drained).toBe(false);
    expect(report.polls).toBe(5);
    expect(queue.size()).toBe(1);
  });
});
