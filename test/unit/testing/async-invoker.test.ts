import { describe, expect, it } from 'vitest';
import { AsyncInvoker, type AsyncFailureRecord } from '../../../scripts/sim/index.js';
import { Deferred } from '../../../src/testing/index.js';

describe('AsyncInvoker (the one async-invocation simulator)', () => {
  it('runs at most `concurrency` events at once, and a waiting retry holds no slot', async () => {
    let running = 0;
    let most = 0;
    const attempts = new Map<string, number>();
    const invoker = new AsyncInvoker<string, string>({
      concurrency: 2,
      retryDelayMs: () => 5,
      handler: async (event) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 1));
        running -= 1;
        const n = (attempts.get(event) ?? 0) + 1;
        attempts.set(event, n);
        if (event === 'flaky' && n === 1) throw new Error('once');
        return event;
      },
    });
    const reports = await Promise.all(['flaky', 'a', 'b', 'c'].map((e) => invoker.submit(e)));
    expect(most).toBe(2);
    expect(reports.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(reports[0]?.attempts).toEqual(['threw', 'returned']);
    expect(invoker.pending()).toBe(0);
  });

  it('builds the failure record for the function where it lives, and tells the observer of every attempt', async () => {
    const failures: AsyncFailureRecord<string>[] = [];
    const seen: string[] = [];
    const invoker = new AsyncInvoker<string, void>({
      functionName: 'points',
      maxRetries: 1,
      context: { region: 'us-east-1', accountId: '000000000000' },
      handler: async () => {
        throw new RangeError('no points');
      },
      observer: {
        attemptStarted: (e) => void seen.push(`start ${e}`),
        attemptEnded: (e, r) => void seen.push(`${r.kind} ${e}`),
        retrying: (e) => void seen.push(`retry ${e}`),
      },
      onFailure: (record) => void failures.push(record),
    });
    const report = await invoker.submit('o-1');
    expect(report.outcome).toBe('failed');
    expect(seen).toEqual(['start o-1', 'threw o-1', 'retry o-1', 'start o-1', 'threw o-1']);
    expect(failures).toEqual([report.record]);
    expect(failures[0]).toMatchObject({
      requestPayload: 'o-1',
      requestContext: {
        functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:points:$LATEST',
        condition: 'RetriesExhausted',
        approximateInvokeCount: 2,
      },
      responsePayload: { errorType: 'RangeError', errorMessage: 'no points' },
    });
  });

  it('keeps the error of a destination that cannot be written, and stop() drops what waits', async () => {
    const invoker = new AsyncInvoker<string, void>({
      handler: async () => {
        throw new Error('down');
      },
      maxRetries: 0,
      onFailure: () => {
        throw new Error('DLQ unreachable');
      },
    });
    await expect(invoker.submit('x')).rejects.toThrow('DLQ unreachable');
    expect(String(invoker.error())).toMatch(/DLQ unreachable/);

    const gate = new Deferred<void>();
    const slow = new AsyncInvoker<string, void>({ handler: () => gate.promise, concurrency: 1 });
    const first = slow.submit('first');
    void slow.submit('queued');
    expect(slow.pending()).toBe(2);
    slow.stop();
    expect(slow.pending()).toBe(1);
    gate.resolve();
    expect((await first).outcome).toBe('succeeded');
    expect(slow.pending()).toBe(0);
  });

  it('refuses an unknown or wrong option by name', () => {
    expect(() => new AsyncInvoker({ handler: async () => 1, concurrency: 0 })).toThrow(/"concurrency"/);
    expect(() => new AsyncInvoker({ handler: async () => 1, maxRetries: 3 })).toThrow(/"maxRetries"/);
  });
});
