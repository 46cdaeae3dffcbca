/**
 * Lambda durable functions on the memory store, with contexts shaped like
 * the SDK's `DurableContext` (the real SDK and its local runner:
 * test/integration/durable/). A replay of the same execution resumes its own
 * claim and renews its lease; another execution with the same key is in
 * progress, then a duplicate; the claim's lease spans the execution; the
 * default payload leaves the contexts out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { DURABLE_LEASE_MS, durableExecutionOf, isDurableContext, lambdaContextOf } from '../../../../src/engine/durable.js';
import { claim, eventBridgeIdempotency, IdempotencyInProgressError, idempotent } from '../../../../src/index.js';
import { Deferred, eventBridgeEvent, lambdaContext, ManualClock, MemoryIdempotencyStore } from '../../../../src/testing/index.js';

/** A context shaped like the SDK's DurableContext for the execution `name`. */
function durableContext(name: string, awsRequestId = 'req-1') {
  return {
    executionContext: { durableExecutionArn: `arn:aws:lambda:eu-west-1:123456789012:function:orders:1/durable-execution/${name}` },
    lambdaContext: lambdaContext({ functionName: 'orders', timeoutMs: 900_000, awsRequestId }),
    step: async <T>(_name: string, fn: () => Promise<T>) => fn(),
  };
}
type DurableLike = ReturnType<typeof durableContext>;

const never = new Promise<never>(() => undefined);
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('durable contexts, by shape', () => {
  it('no source file loads the durable SDK (optional peer dependencies: a type import at most)', () => {
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(50);
    const loading = files.filter((f) => {
      const text = readFileSync(join('src', f), 'utf8');
      return /(?:import|export)(?!\s+type\b)[^;]*from\s+'@aws\/durable-execution-sdk-js|import\(\s*'@aws\/durable-execution-sdk-js/.test(
        text,
      );
    });
    expect(loading).toEqual([]);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, unknown>>;
    for (const name of ['@aws/durable-execution-sdk-js', '@aws/durable-execution-sdk-js-testing']) {
      expect(pkg['peerDependencies']?.[name]).toBeTypeOf('string');
      expect(pkg['peerDependenciesMeta']?.[name]).toEqual({ optional: true });
    }
  });

  it('recognised by their execution ARN and step; the Lambda context is the one they hold', () => {
    const ctx = durableContext('a');
    expect(isDurableContext(ctx)).toBe(true);
    expect(isDurableContext(lambdaContext())).toBe(false);
    expect(isDurableContext({ executionContext: { durableExecutionArn: '' }, step: () => undefined })).toBe(false);
    expect(lambdaContextOf(ctx)).toBe(ctx.lambdaContext);
    expect(durableExecutionOf(ctx)).toEqual({
      arn: ctx.executionContext.durableExecutionArn,
      marker: `durable:${ctx.executionContext.durableExecutionArn}`,
      leaseMs: DURABLE_LEASE_MS,
      resume: expect.any(Function),
    });
  });
});

describe('idempotent() in a durable execution', () => {
  function setup(options: { heartbeat?: boolean; leaseMs?: number } = {}) {
    const clock = new ManualClock();
    const store = new MemoryIdempotencyStore({ clock });
    const effects: string[] = [];
    let suspend = true;
    const handler = idempotent(
      async (event: { orderNo: string }, ctx: DurableLike) => {
        await ctx.step('charge', async () => effects.push(`charge ${event.orderNo}`));
        // The SDK suspends at a wait: the handler's promise never settles in that invocation.
        if (suspend) await never;
        return { shipped: event.orderNo };
      },
      {
        store,
        consumer: 'orders',
        key: (event) => event.orderNo,
        ...(options.heartbeat === true ? { strategy: claim({ heartbeat: { everyMs: 1 } }) } : {}),
        ...(options.leaseMs === undefined ? {} : { durable: { leaseMs: options.leaseMs } }),
      },
    );
    return { clock, store, effects, handler, resume: () => (suspend = false) };
  }

  it('the same execution replaying resumes its own claim (not refused), renewed from now; another execution is in progress', async () => {
    const { clock, store, handler, resume } = setup();
    const a = durableContext('a');
    void handler({ orderNo: 'o-1' }, a); // the first invocation suspends
    await flush();
    const id = store.recordId('orders', 'o-1');
    const first = await store.get(id);
    expect(first).toMatchObject({ status: 'IN_PROGRESS', messageId: `durable:${a.executionContext.durableExecutionArn}` });
    expect(first?.leaseUntil).toBe(clock.now() + DURABLE_LEASE_MS);

    await expect(handler({ orderNo: 'o-1' }, durableContext('b'))).rejects.toBeInstanceOf(IdempotencyInProgressError);

    clock.advance(3_600_000); // an hour-long wait
    resume();
    await expect(handler({ orderNo: 'o-1' }, durableContext('a'))).resolves.toEqual({ shipped: 'o-1' });
    const done = await store.get(id);
    expect(done).toMatchObject({ status: 'COMPLETED', owner: first?.owner, attempts: 1, result: { shipped: 'o-1' } });
  });

  it('a replay renews the lease from its own time; durable.leaseMs sets it', async () => {
    const { clock, store, handler } = setup({ leaseMs: 7_200_000 });
    void handler({ orderNo: 'o-2' }, durableContext('a'));
    await flush();
    const id = store.recordId('orders', 'o-2');
    expect((await store.get(id))?.leaseUntil).toBe(clock.now() + 7_200_000);
    clock.advance(3_600_000);
    void handler({ orderNo: 'o-2' }, durableContext('a'));
    await flush();
    expect((await store.get(id))?.leaseUntil).toBe(clock.now() + 7_200_000);
  });

  it('another execution after the first completed gets its result without running', async () => {
    const { store, effects, handler, resume } = setup();
    resume();
    expect(await handler({ orderNo: 'o-3' }, durableContext('a'))).toEqual({ shipped: 'o-3' });
    expect(await handler({ orderNo: 'o-3' }, durableContext('b'))).toEqual({ shipped: 'o-3' });
    expect(effects).toEqual(['charge o-3']);
    expect((await store.get(store.recordId('orders', 'o-3')))?.attempts).toBe(1);
  });

  it('the default payload leaves the contexts out: a replay (another request id) is no payload mismatch', async () => {
    const { handler, resume } = setup();
    resume();
    await handler({ orderNo: 'o-4' }, durableContext('a', 'req-1'));
    await expect(handler({ orderNo: 'o-4' }, durableContext('b', 'req-2'))).resolves.toEqual({ shipped: 'o-4' });
    const plain = idempotent(async (n: number, _ctx: unknown) => n, { store: new MemoryIdempotencyStore(), consumer: 'c', key: String });
    expect(await plain(1, lambdaContext({ awsRequestId: 'r-1' }))).toBe(1);
    await expect(plain(1, lambdaContext({ awsRequestId: 'r-2' }))).resolves.toBe(1);
  });

  it('no heartbeat runs for a durable execution (nothing would renew a suspended one; its lease spans it)', async () => {
    const { store, handler } = setup({ heartbeat: true });
    let renewals = 0;
    const renew = store.renew.bind(store);
    store.renew = async (input) => {
      renewals += 1;
      return renew(input);
    };
    void handler({ orderNo: 'o-5' }, durableContext('a'));
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    expect(renewals).toBe(0);
  });
});

describe('eventBridgeIdempotency in a durable execution', () => {
  it('its replay resumes the claim; another execution replays the stored result; the consumer is the function name', async () => {
    const store = new MemoryIdempotencyStore();
    let runs = 0;
    const gate = new Deferred<void>();
    const event = eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'o-9' } });
    const handler = middy<typeof event, { n: number }>()
      .use(eventBridgeIdempotency<typeof event>({ store, key: (e) => e.detail.orderNo, storeResult: true, logger: false }))
      .handler(async () => {
        runs += 1;
        if (runs === 1) await never; // suspended at a wait
        await gate.promise;
        return { n: runs };
      });
    const invoke = (ctx: DurableLike) => handler(event, ctx as never);
    void invoke(durableContext('a'));
    await flush();
    const id = store.recordId('orders', 'o-9');
    expect(await store.get(id)).toMatchObject({ status: 'IN_PROGRESS' });
    await expect(invoke(durableContext('b'))).rejects.toBeInstanceOf(IdempotencyInProgressError);
    const replay = invoke(durableContext('a'));
    gate.resolve();
    expect(await replay).toEqual({ n: 2 });
    expect(await invoke(durableContext('b'))).toEqual({ n: 2 });
    expect(runs).toBe(2); // the suspended first invocation and its replay: the one execution
    expect(await store.get(id)).toMatchObject({ status: 'COMPLETED', attempts: 1 });
  });
});
