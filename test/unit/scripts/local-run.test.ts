/**
 * The pure parts of the local run: command line, Lambda's delete rules for a
 * batch response, the async invoker's retry semantics, and the workload's
 * determinism.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { AsyncInvokeDefinition } from '../../../infra/queues.js';
import { createAsyncInvoker, type AsyncFailureRecord } from '../../../scripts/local/async-invoker.js';
import { idsToDelete } from '../../../scripts/local/event-source.js';
import { FirstAttemptFault, InjectedFault } from '../../../scripts/local/faults.js';
import { defaults, parseArgs, UsageError } from '../../../scripts/local/options.js';
import { chanceOf, mulberry32 } from '../../../scripts/local/prng.js';
import { newSourceStats } from '../../../scripts/local/stats.js';
import { planWorkload } from '../../../scripts/local/workload.js';
import { InvocationTimeoutError } from '../../../src/testing/errors.js';
import { lambdaContext } from '../../../src/testing/index.js';

describe('parseArgs', () => {
  it('applies defaults and reads both flag forms', () => {
    expect(parseArgs([])).toEqual({ kind: 'run', workload: defaults, json: false, progress: true });
    const cmd = parseArgs(['--orders', '50', '--seed=9', '--dup-rate', '0.5', '--json', '--no-progress']);
    expect(cmd).toMatchObject({ kind: 'run', json: true, progress: false, workload: { orders: 50, seed: 9, dupRate: 0.5 } });
  });

  it('prints help', () => {
    expect(parseArgs(['--pollers', '2', '-h'])).toEqual({ kind: 'help' });
  });

  it.each([
    [['--orders'], /--orders needs a value/],
    [['--orders', 'many'], /--orders must be an integer, got "many"/],
    [['--orders', '1.5'], /must be an integer/],
    [['--fail-rate', '2'], /--fail-rate must be a number from 0 to 1, got 2/],
    [['--pollers', '0'], /--pollers must be an integer from 1 to 64/],
    [['--speed', '3'], /Unknown option "--speed"/],
    [['--json=yes'], /--json takes no value/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });
});

describe('idsToDelete (Lambda ReportBatchItemFailures rules)', () => {
  const event = { Records: [{ messageId: 'a' }, { messageId: 'b' }, { messageId: 'c' }] } as SQSEvent;
  const context = lambdaContext();
  const returned = (value: unknown) => ({ kind: 'returned' as const, value: value as never, context, durationMs: 1 });

  it('deletes everything but the reported failures', () => {
    expect(idsToDelete(event, returned({ batchItemFailures: [{ itemIdentifier: 'b' }] }))).toEqual({ ids: ['a', 'c'], invalid: false });
    expect(idsToDelete(event, returned({ batchItemFailures: [] })).ids).toEqual(['a', 'b', 'c']);
    expect(idsToDelete(event, returned(undefined)).ids).toEqual(['a', 'b', 'c']);
  });

  it('deletes nothing when the handler threw or timed out', () => {
    expect(idsToDelete(event, { kind: 'threw', error: new Error('x'), context, durationMs: 1 }).ids).toEqual([]);
    expect(idsToDelete(event, { kind: 'timed-out', error: new InvocationTimeoutError(1000), context, durationMs: 1 }).ids).toEqual([]);
  });

  it('fails the whole batch on an identifier that is empty or not in the batch', () => {
    expect(idsToDelete(event, returned({ batchItemFailures: [{ itemIdentifier: 'zzz' }] }))).toEqual({ ids: [], invalid: true });
    expect(idsToDelete(event, returned({ batchItemFailures: [{ itemIdentifier: '' }] }))).toEqual({ ids: [], invalid: true });
    expect(idsToDelete(event, returned({ batchItemFailures: 'nope' }))).toEqual({ ids: [], invalid: true });
  });
});

describe('createAsyncInvoker', () => {
  const definition: AsyncInvokeDefinition = {
    maximumRetryAttempts: 2,
    maximumEventAgeSeconds: 3600,
    functionTimeoutSeconds: 1,
    dlqMessageRetentionSeconds: 60,
  };

  async function settle(pending: () => number): Promise<void> {
    while (pending() > 0) await new Promise((r) => setTimeout(r, 5));
  }

  it('retries twice, then sends the event to the on-failure destination', async () => {
    const stats = newSourceStats();
    const failures: AsyncFailureRecord<string>[] = [];
    const invoker = createAsyncInvoker<string>({
      functionName: 'points',
      handler: async (event) => {
        if (event === 'bad') throw new TypeError('always fails');
        return 'ok';
      },
      definition,
      retryDelaysMs: [1, 2],
      functionTimeoutMs: 1000,
      concurrency: 2,
      stats,
      onFailure: async (record) => void failures.push(record),
    });
    invoker.invoke('good');
    invoker.invoke('bad');
    await settle(() => invoker.pending());
    expect(stats).toMatchObject({ delivered: 4, acknowledged: 1, retried: 2, handlerErrors: 3, toDestination: 1 });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      requestPayload: 'bad',
      requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      responsePayload: { errorType: 'TypeError', errorMessage: 'always fails' },
    });
  });

  it('succeeds on a retry after a transient failure', async () => {
    const stats = newSourceStats();
    const fault = new FirstAttemptFault('effect', new Set(['k']));
    const invoker = createAsyncInvoker<string>({
      functionName: 'points',
      handler: async (event) => fault.hit(event),
      definition,
      retryDelaysMs: [1],
      functionTimeoutMs: 1000,
      concurrency: 1,
      stats,
      onFailure: async () => {
        throw new Error('not expected');
      },
    });
    invoker.invoke('k');
    await settle(() => invoker.pending());
    expect(stats).toMatchObject({ delivered: 2, acknowledged: 1, retried: 1, toDestination: 0 });
    expect(invoker.error()).toBeUndefined();
  });
});

describe('determinism', () => {
  it('gives the same workload for the same seed and another for another seed', () => {
    const options = { ...defaults, orders: 200 };
    const a = planWorkload(options);
    const b = planWorkload(options);
    expect(a.sends).toEqual(b.sends);
    expect([...a.failOnce.publish]).toEqual([...b.failOnce.publish]);
    expect(planWorkload({ ...options, seed: 1 }).sends).not.toEqual(a.sends);
  });

  it('plans poison first, then originals, re-sends and notifications', () => {
    const w = planWorkload({ ...defaults, orders: 100, dupRate: 0.1 });
    expect(w.sends.slice(0, w.poison.length).every((s) => s.kind === 'poison')).toBe(true);
    expect(w.sends.filter((s) => s.queue === 'payments' && s.kind === 'original')).toHaveLength(100);
    expect(w.sends.filter((s) => s.kind === 'resend')).toHaveLength(20);
  });

  it('draws reproducible numbers', () => {
    const r1 = mulberry32(42);
    const r2 = mulberry32(42);
    expect([r1(), r1(), r1()]).toEqual([r2(), r2(), r2()]);
    expect(chanceOf(1, 'x')).toBe(chanceOf(1, 'x'));
    expect(chanceOf(1, 'x')).not.toBe(chanceOf(2, 'x'));
  });

  it('fails a selected key on its first attempt only', () => {
    const fault = new FirstAttemptFault('publish', new Set(['o-1']));
    expect(() => fault.hit('o-1')).toThrow(InjectedFault);
    expect(() => fault.hit('o-1')).not.toThrow();
    expect(() => fault.hit('o-2')).not.toThrow();
    expect(fault.injected).toBe(1);
  });
});
