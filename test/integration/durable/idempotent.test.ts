/**
 * Issue 24: `idempotent(fn)` around a Lambda durable function
 * (`@aws/durable-execution-sdk-js`), run by the SDK's local test runner
 * against DynamoDB Local. The runner replays the handler from the start
 * after every wait, answering finished steps from their checkpoints, as the
 * service does: the replay resumes its execution's own claim, another
 * execution with the same key is refused (or waits) while the first is
 * suspended and gets its result once it is done, and an invocation that
 * ends between two steps replays and finishes with nothing applied twice.
 */
import { randomUUID } from 'node:crypto';
import { type DurableContext, withDurableExecution } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner, WaitingOperationStatus } from '@aws/durable-execution-sdk-js-testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, idempotent, type IdempotentOptions } from '../../../src/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';

interface Order {
  readonly orderNo: string;
  readonly cents: number;
}
type Args = [Order, DurableContext];

/** What the handler did, counted across every invocation of every execution of one test. */
class Effects {
  readonly applied: string[] = [];
  bodyRuns = 0;
  count(name: string): number {
    return this.applied.filter((e) => e === name).length;
  }
}

describe('idempotent(fn) in a durable function (local runner, DynamoDB Local)', () => {
  const { client, doc } = testDynamo();
  let store: DynamoDBIdempotencyStore;
  // Real timers: the runner's skipTime installs fake timers for the whole process, which the AWS SDK would run on too.
  beforeAll(async () => {
    await LocalDurableTestRunner.setupTestEnvironment({ skipTime: false });
    store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
  });
  afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());

  const options = (more: Partial<IdempotentOptions<Args>> = {}): IdempotentOptions<Args> => ({
    store,
    consumer: `durable-${randomUUID().slice(0, 8)}`,
    key: (order) => order.orderNo,
    ...more,
  });

  /** charge, wait 1 s, ship: the wait ends the invocation and the rest runs in a replay. */
  function waitingHandler(effects: Effects, more: Partial<IdempotentOptions<Args>> = {}) {
    const fn = async (order: Order, ctx: DurableContext) => {
      effects.bodyRuns += 1;
      const chargeId = await ctx.step('charge', async () => {
        effects.applied.push('charge');
        return `ch-${order.orderNo}`;
      });
      await ctx.wait('settle', { seconds: 1 });
      await ctx.step('ship', async () => {
        effects.applied.push('ship');
      });
      return { chargeId, cents: order.cents };
    };
    return { options: options(more), fn };
  }

  it('an execution with a wait between two steps completes, each step applied once', async () => {
    const effects = new Effects();
    const { options: o, fn } = waitingHandler(effects);
    const runner = new LocalDurableTestRunner({ handlerFunction: withDurableExecution(idempotent(fn, o)) });
    const execution = await runner.run({ payload: { orderNo: 'o-1', cents: 500 } });
    expect(execution.getStatus()).toBe('SUCCEEDED');
    expect(execution.getResult()).toEqual({ chargeId: 'ch-o-1', cents: 500 });
    expect(effects.applied).toEqual(['charge', 'ship']);
    expect(effects.bodyRuns).toBeGreaterThanOrEqual(2); // the wait ended the first invocation: a replay finished it
    expect(execution.getInvocations().length).toBeGreaterThanOrEqual(2);
    const record = await store.get(store.recordId(o.consumer, 'o-1'));
    expect(record).toMatchObject({ status: 'COMPLETED', attempts: 1, result: { chargeId: 'ch-o-1', cents: 500 } });
  }, 30_000);

  it("a second execution with the same payload gets the first one's result without running", async () => {
    const effects = new Effects();
    const { options: o, fn } = waitingHandler(effects);
    const handler = withDurableExecution(idempotent(fn, o));
    const first = await new LocalDurableTestRunner({ handlerFunction: handler }).run({ payload: { orderNo: 'o-2', cents: 700 } });
    const runsAfterFirst = effects.bodyRuns;
    const second = await new LocalDurableTestRunner({ handlerFunction: handler }).run({ payload: { orderNo: 'o-2', cents: 700 } });
    expect(second.getStatus()).toBe('SUCCEEDED');
    expect(second.getResult()).toEqual(first.getResult());
    expect(second.getOperations()).toHaveLength(0); // no step, no wait: the handler never ran
    expect(effects.bodyRuns).toBe(runsAfterFirst);
    expect(effects.applied).toEqual(['charge', 'ship']);
  }, 30_000);

  /** charge, then suspended on a callback the test answers: the execution is in progress for as long as the test wants. */
  function suspendingHandler(effects: Effects) {
    return async (order: Order, ctx: DurableContext) => {
      effects.bodyRuns += 1;
      await ctx.step('charge', async () => {
        effects.applied.push('charge');
      });
      const approval = await ctx.waitForCallback<string>('approval', async () => undefined);
      return { orderNo: order.orderNo, approval };
    };
  }

  it('a second execution started while the first is suspended is refused (inProgress: "throw")', async () => {
    const effects = new Effects();
    const handler = withDurableExecution(idempotent(suspendingHandler(effects), options()));
    const firstRunner = new LocalDurableTestRunner({ handlerFunction: handler });
    const first = firstRunner.run({ payload: { orderNo: 'o-3', cents: 1 } });
    const approval = firstRunner.getOperation('approval');
    await approval.waitForData(WaitingOperationStatus.SUBMITTED);

    const second = await new LocalDurableTestRunner({ handlerFunction: handler }).run({ payload: { orderNo: 'o-3', cents: 1 } });
    expect(second.getStatus()).toBe('FAILED');
    expect(second.getError().errorType).toBe('IdempotencyInProgressError');

    await approval.sendCallbackSuccess('yes');
    const done = await first;
    expect(done.getStatus()).toBe('SUCCEEDED');
    expect(done.getResult()).toEqual({ orderNo: 'o-3', approval: 'yes' });
    expect(effects.count('charge')).toBe(1);
  }, 30_000);

  it('with inProgress: "wait", it waits for the suspended first one and gets its result without running', async () => {
    const effects = new Effects();
    const o = options({ inProgress: 'wait', wait: { maxMs: 20_000, initialDelayMs: 50, maxDelayMs: 200 } });
    const handler = withDurableExecution(idempotent(suspendingHandler(effects), o));
    const firstRunner = new LocalDurableTestRunner({ handlerFunction: handler });
    const first = firstRunner.run({ payload: { orderNo: 'o-4', cents: 1 } });
    const approval = firstRunner.getOperation('approval');
    await approval.waitForData(WaitingOperationStatus.SUBMITTED);

    const second = new LocalDurableTestRunner({ handlerFunction: handler }).run({ payload: { orderNo: 'o-4', cents: 1 } });
    await approval.sendCallbackSuccess('yes');
    const [done, waited] = await Promise.all([first, second]);
    expect(done.getStatus()).toBe('SUCCEEDED');
    expect(waited.getStatus()).toBe('SUCCEEDED');
    expect(waited.getResult()).toEqual(done.getResult());
    expect(waited.getOperations()).toHaveLength(0);
    expect(effects.count('charge')).toBe(1);
  }, 30_000);

  it('an invocation that ends between two steps replays and finishes with nothing applied twice', async () => {
    const effects = new Effects();
    let interruptions = 0;
    // The step between the two effects fails once: the SDK ends the invocation there (nothing after it runs)
    // and the replay starts the handler from the top, as it does after a crash between steps.
    const fn = async (order: Order, ctx: DurableContext) => {
      effects.bodyRuns += 1;
      await ctx.step('charge', async () => {
        effects.applied.push('charge');
      });
      await ctx.step(
        'between',
        async () => {
          if (interruptions === 0) {
            interruptions += 1;
            throw new Error('the invocation dies here');
          }
        },
        { retryStrategy: (_error, attempt) => ({ shouldRetry: attempt < 3, delay: { seconds: 1 } }) },
      );
      await ctx.step('ship', async () => {
        effects.applied.push('ship');
      });
      return order.orderNo;
    };
    const o = options();
    const execution = await new LocalDurableTestRunner({ handlerFunction: withDurableExecution(idempotent(fn, o)) }).run({
      payload: { orderNo: 'o-5', cents: 1 },
    });
    expect(execution.getStatus()).toBe('SUCCEEDED');
    expect(interruptions).toBe(1);
    expect(effects.bodyRuns).toBeGreaterThanOrEqual(2);
    expect(effects.applied).toEqual(['charge', 'ship']);
    const record = await store.get(store.recordId(o.consumer, 'o-5'));
    expect(record).toMatchObject({ status: 'COMPLETED', attempts: 1, result: 'o-5' });
  }, 30_000);
});
