import { describe, expect, it } from 'vitest';
import { ManualClock, abandon, eventBridgeEvent, flaky } from '../../../src/testing/index.js';
import { SqsQueueSimulator, invokeAsync, lambdaAsyncRetryDelaysMs } from '../../../scripts/sim/index.js';
import type { AsyncFailureRecord } from '../../../scripts/sim/index.js';

const event = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop.payments', detail: { orderNo: 'o-1' } });
type PaidEvent = typeof event;

describe('invokeAsync', () => {
  it('retries twice by default, then sends a RetriesExhausted record to the on-failure destination', async () => {
    const requestIds: string[] = [];
    const failures: AsyncFailureRecord<PaidEvent>[] = [];
    const report = await invokeAsync({
      event,
      functionName: 'points',
      handler: async (_e: PaidEvent, context) => {
        requestIds.push(context.awsRequestId);
        throw new TypeError('points table unavailable');
      },
      onFailure: (record) => {
        failures.push(record);
      },
    });
    expect(report.outcome).toBe('failed');
    expect(report.attempts).toEqual(['threw', 'threw', 'threw']);
    expect(new Set(requestIds).size).toBe(1);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      version: '1.0',
      requestContext: {
        requestId: requestIds[0],
        functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:points:$LATEST',
        condition: 'RetriesExhausted',
        approximateInvokeCount: 3,
      },
      requestPayload: event,
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      responsePayload: { errorType: 'TypeError', errorMessage: 'points table unavailable' },
    });
  });

  it('stops retrying at the first success and reports it to on-success', async () => {
    const transient = flaky({ failTimes: 1 });
    const successes: unknown[] = [];
    const failures: unknown[] = [];
    const report = await invokeAsync({
      event,
      handler: async (e: PaidEvent) => {
        transient.hit(e.detail.orderNo);
        return { awarded: 10 };
      },
      onSuccess: (record) => {
        successes.push(record.requestContext.approximateInvokeCount);
      },
      onFailure: (record) => {
        failures.push(record);
      },
    });
    expect(report.outcome).toBe('succeeded');
    expect(report.outcome === 'succeeded' && report.result).toEqual({ awarded: 10 });
    expect(report.attempts).toEqual(['threw', 'returned']);
    expect(successes).toEqual([2]);
    expect(failures).toEqual([]);
  });

  it('honours maxRetries 0 and counts a crash as a failed attempt', async () => {
    let calls = 0;
    const report = await invokeAsync({
      event,
      maxRetries: 0,
      handler: async () => {
        calls += 1;
        await abandon();
      },
    });
    expect(calls).toBe(1);
    expect(report.attempts).toEqual(['crashed']);
    expect(report.outcome === 'failed' && report.record.responsePayload?.errorType).toBe('Runtime.ExitError');
  });

  it('waits the injected retry delays on the clock, and gives up when the event is too old', async () => {
    const clock = new ManualClock(0);
    const times: number[] = [];
    const report = await invokeAsync({
      event,
      clock,
      maxEventAgeMs: 90_000,
      retryDelayMs: (retry) => lambdaAsyncRetryDelaysMs[retry - 1] ?? 0,
      handler: async () => {
        times.push(clock.now());
        throw new Error('down');
      },
    });
    // 1st attempt at 0, retry after 60 s, then the 2-minute wait passes the 90 s maximum age.
    expect(times).toEqual([0, 60_000]);
    expect(report.outcome === 'failed' && report.record.requestContext).toMatchObject({
      condition: 'EventAgeExceeded',
      approximateInvokeCount: 2,
    });
  });

  it('delivers the failure record as JSON to a standard queue, and refuses a FIFO destination', async () => {
    const dlq = new SqsQueueSimulator({ name: 'points-failures', clock: new ManualClock() });
    await invokeAsync({
      event,
      maxRetries: 1,
      handler: async () => {
        throw new Error('x');
      },
      onFailure: dlq,
    });
    const [message] = dlq.receive();
    expect(JSON.parse(message?.body ?? '{}')).toMatchObject({
      requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 2 },
      requestPayload: event,
    });
    const fifo = new SqsQueueSimulator({ name: 'f.fifo' });
    await expect(invokeAsync({ event, handler: async () => 1, onFailure: fifo })).rejects.toThrow(/"onFailure"/);
    await expect(invokeAsync({ event, handler: async () => 1, maxRetries: 3 })).rejects.toThrow(/"maxRetries"/);
  });

  it('gives each attempt its own copy of the event', async () => {
    const seen: string[] = [];
    await invokeAsync({
      event,
      handler: async (e: PaidEvent) => {
        seen.push(e.detail.orderNo);
        e.detail.orderNo = 'mutated';
        throw new Error('again');
      },
    });
    expect(seen).toEqual(['o-1', 'o-1', 'o-1']);
    expect(event.detail.orderNo).toBe('o-1');
  });
});
