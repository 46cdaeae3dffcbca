/**
 * The EMF metrics line through sqsIdempotency + eachRecord and
 * eventBridgeIdempotency on DynamoDB Local: what each document counts, where
 * `emfMetrics()` writes it, none without a plug-in, a throwing sink, hashed
 * keys, and a real Powertools `Metrics` instance through `powertoolsMetrics`.
 */
import middy from '@middy/core';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { EventBridgeEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  eachRecord,
  emfMetrics,
  eventBridgeIdempotency,
  eventBridgeHandler,
  jsonBody,
  powertoolsMetrics,
  sqsIdempotency,
  transaction,
} from '../../src/index.js';
import type { EmfDocument } from '../../src/observe/emf.js';
import type { MetricsPlugin } from '../../src/observe/metrics-plugin.js';
import { Deferred, eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';
import { failedIds, harness, order } from './sqs/harness.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;

afterEach(() => {
  vi.restoreAllMocks();
});

/** Captures what is written to stdout, parsed where a line is JSON. */
function captureStdout(): { readonly lines: () => string[]; readonly json: () => Record<string, unknown>[] } {
  const written: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  const lines = () =>
    written
      .join('')
      .split('\n')
      .filter((l) => l.length > 0);
  const json = () => lines().flatMap((l) => (l.startsWith('{') ? [JSON.parse(l) as Record<string, unknown>] : []));
  return { lines, json };
}

async function ebSetup(metrics: MetricsPlugin, storeOptions: { hashKeys?: boolean } = {}) {
  const { client, doc } = testDynamo();
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client), ...storeOptions });
  const build = (fn: (e: OrderPaid) => Promise<unknown>, first?: middy.MiddlewareObj<OrderPaid, unknown>) =>
    middy<OrderPaid, unknown>()
      .use(first ?? [])
      .use(
        eventBridgeIdempotency<OrderPaid, unknown>({
          store,
          consumer: 'points',
          key: (e) => e.detail.orderNo,
          logger: false,
          metrics,
          storeResult: true,
        }),
      )
      .handler(fn);
  const paid = (orderNo: string): OrderPaid => eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo } });
  return { build, paid, context: () => lambdaContext({ functionName: 'points-fn', timeoutMs: 30_000 }) };
}

describe('metrics: SQS', () => {
  it('counts completed, failed and invalid records, then duplicates, one EMF document per batch', async () => {
    const h = await harness();
    const docs: EmfDocument[] = [];
    const handler = h.handler(
      async (record) => {
        if (jsonBody<{ fail?: boolean }>(record).fail === true) throw new Error('boom');
      },
      { metrics: emfMetrics({ namespace: 'Shop', dimensions: { Service: 'orders' }, emit: (d) => docs.push(d) }) },
    );
    const a = order('m-a');
    const b = order('m-b');
    const bad = order('m-bad', { fail: true });
    const noKey = sqsRecord({ body: '{"nothing":1}' });
    const first = await handler(sqsEvent([a, b, bad, noKey]), h.context());
    expect(failedIds(first).sort()).toEqual([bad.messageId, noKey.messageId].sort());
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({
      Consumer: 'test',
      Source: 'sqs',
      Service: 'orders',
      Records: 4,
      RecordsCompleted: 2,
      RecordsFailed: 1,
      RecordsInvalid: 1,
      RecordsDuplicate: 0,
      RecordsRetried: 2,
    });
    expect(docs[0]?._aws.CloudWatchMetrics[0].Namespace).toBe('Shop');
    expect(docs[0]?._aws.CloudWatchMetrics[0].Dimensions).toEqual([['Service', 'Consumer', 'Source']]);
    expect(typeof docs[0]?.Duration).toBe('number');

    // A producer re-sends both business events under new message ids: acknowledged duplicates, counted as such.
    const again = await handler(sqsEvent([order('m-a'), order('m-b')]), h.context());
    expect(failedIds(again)).toEqual([]);
    expect(docs).toHaveLength(2);
    expect(docs[1]).toMatchObject({ Records: 2, RecordsDuplicate: 2, RecordsCompleted: 0, RecordsRetried: 0 });
  });

  it('counts a lease lost to a takeover', async () => {
    const h = await harness();
    const docs: EmfDocument[] = [];
    const metrics = emfMetrics({ emit: (d: EmfDocument) => docs.push(d) });
    const record = order('m-slow');
    const inSlow = new Deferred();
    const finishSlow = new Deferred();
    const slowRun = h.handler(
      async () => {
        inSlow.resolve();
        await finishSlow.promise;
      },
      { metrics },
    )(sqsEvent([record]), h.context(10_000));
    await inSlow.promise;
    h.clock.advance(60_000); // the slow one's lease passes
    await h.handler(undefined, { metrics })(sqsEvent([record]), h.context());
    finishSlow.resolve();
    expect(failedIds(await slowRun)).toEqual([record.messageId]);
    expect(docs.map((d) => d.RecordsLeaseLost)).toEqual([0, 1]);
  });

  it('emfMetrics() writes one EMF line to stdout; without a metrics plug-in none is written while the logger still runs', async () => {
    const h = await harness();
    const out = captureStdout();
    await h.handler(undefined, { metrics: emfMetrics() })(sqsEvent([order('m-default')]), h.context());
    const emf = out.json().filter((j) => '_aws' in j);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ Consumer: 'test', Source: 'sqs', RecordsCompleted: 1 });
    expect(JSON.stringify(emf[0]?._aws)).toContain('"Namespace":"EffectivelyOnce"');

    const before = out.lines().length;
    await h.handler()(sqsEvent([order('m-off')]), h.context());
    expect(out.lines().length).toBe(before);
    expect(h.lines).toHaveLength(2);
  });

  it('a throwing or rejecting metrics sink neither fails nor changes the batch', async () => {
    const h = await harness();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const throwing = h.handler(undefined, {
      metrics: emfMetrics({
        emit: () => {
          throw new Error('sink down');
        },
      }),
    });
    expect(failedIds(await throwing(sqsEvent([order('m-t1')]), h.context()))).toEqual([]);
    const rejecting = h.handler(undefined, { metrics: emfMetrics({ emit: () => Promise.reject(new Error('sink down later')) as never }) });
    expect(failedIds(await rejecting(sqsEvent([order('m-t2')]), h.context()))).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(h.effects.get('m-t1')).toBe(1);
    expect(h.effects.get('m-t2')).toBe(1);
    expect(errors.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('metrics sink threw'))).toHaveLength(2);
  });

  it('with hashKeys, no business key appears in the metrics line', async () => {
    const h = await harness({ hashKeys: true });
    const out = captureStdout();
    await h.handler(undefined, { logger: false, metrics: emfMetrics() })(sqsEvent([order('jane.doe@example.com')]), h.context());
    expect(out.lines()).toHaveLength(1);
    expect(out.lines()[0]).not.toContain('jane.doe');
  });

  it('checks the options once, at the factory, naming them; the middleware takes only a plug-in', async () => {
    const h = await harness();
    const emf = (options: unknown) => () => emfMetrics(options as never);
    expect(emf({ namespace: 'AWS/Lambda' })).toThrow('emfMetrics: option "namespace"');
    expect(emf({ namespace: '' })).toThrow('emfMetrics: option "namespace"');
    expect(emf({ namespce: 'X' })).toThrow('emfMetrics: unknown option "namespce"');
    expect(emf({ dimensions: { Consumer: 'x' } })).toThrow('emfMetrics: option "dimensions"');
    expect(emf({ dimensions: { Records: 'x' } })).toThrow('emfMetrics: option "dimensions"');
    expect(emf({ dimensions: { Service: 1 } })).toThrow('emfMetrics: option "dimensions"');
    expect(emf({ emit: 'stdout' })).toThrow('emfMetrics: option "emit"');
    expect(() => powertoolsMetrics({ addMetric: () => undefined } as never)).toThrow(/powertoolsMetrics: .*publishStoredMetrics/);
    const build = (metrics: unknown) => () => sqsIdempotency({ store: h.store, key: () => 'k', metrics: metrics as MetricsPlugin });
    for (const old of [false, true, {}, { namespace: 'Shop' }, { addMetric: () => undefined, publishStoredMetrics: () => undefined }]) {
      expect(build(old)).toThrow('option "metrics" must be what emfMetrics() or powertoolsMetrics() returns');
    }
    expect(build(undefined)).not.toThrow();
    expect(build(emfMetrics({ namespace: 'Shop', dimensions: { Service: 'orders' }, emit: () => undefined }))).not.toThrow();
  });
});

describe('metrics: EventBridge', () => {
  it('counts a completed event, a replayed duplicate, a failure and an invalid event', async () => {
    const docs: EmfDocument[] = [];
    const s = await ebSetup(emfMetrics({ emit: (d) => docs.push(d) }));
    const handler = s.build(async (e) => {
      if (e.detail.orderNo === 'fail') throw new Error('boom');
      return { ok: e.detail.orderNo };
    });
    expect(await handler(s.paid('e1'), s.context())).toEqual({ ok: 'e1' });
    expect(await handler(s.paid('e1'), s.context())).toEqual({ ok: 'e1' }); // re-published: new event id
    await expect(handler(s.paid('fail'), s.context())).rejects.toThrow('boom');
    await expect(
      handler(eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: {} }) as OrderPaid, s.context()),
    ).rejects.toThrow();
    expect(docs.map((d) => [d.RecordsCompleted, d.RecordsDuplicate, d.Replays, d.RecordsFailed, d.RecordsInvalid])).toEqual([
      [1, 0, 0, 0, 0],
      [0, 1, 1, 0, 0],
      [0, 0, 0, 1, 0],
      [0, 0, 0, 0, 1],
    ]);
    expect(docs.every((d) => d.Source === 'eventbridge' && d.Consumer === 'points' && d.Records === 1)).toBe(true);
  });
});

describe('metrics: EventBridge, transaction strategy', () => {
  it('a duplicate answered with the stored result by eventBridgeHandler counts as a replay', async () => {
    const { client, doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    const docs: EmfDocument[] = [];
    const handler = middy<OrderPaid, unknown>()
      .use(
        eventBridgeIdempotency<OrderPaid, unknown>({
          store,
          consumer: 'points',
          strategy: transaction(),
          storeResult: true,
          key: (e) => e.detail.orderNo,
          logger: false,
          metrics: emfMetrics({ emit: (d) => docs.push(d) }),
        }),
      )
      .handler(eventBridgeHandler(async (e: OrderPaid) => ({ ok: e.detail.orderNo })));
    const paid = (): OrderPaid => eventBridgeEvent({ detailType: 'OrderPaid', source: 'shop', detail: { orderNo: 'tx-1' } });
    const context = lambdaContext({ functionName: 'points-fn', timeoutMs: 30_000 });
    expect(await handler(paid(), context)).toEqual({ ok: 'tx-1' });
    expect(await handler(paid(), context)).toEqual({ ok: 'tx-1' });
    expect(docs.map((d) => [d.RecordsCompleted, d.RecordsDuplicate, d.Replays])).toEqual([
      [1, 0, 0],
      [0, 1, 1],
    ]);
  });
});

describe('metrics: a Powertools Metrics instance', () => {
  /** The EMF documents Powertools flushed to stdout. */
  const flushed = (out: ReturnType<typeof captureStdout>) => out.json().filter((j) => '_aws' in j);
  /** An SQS handler whose counts go to `metrics`, flushed by its own logMetrics middleware (registered first). */
  const withPowertools = (h: Awaited<ReturnType<typeof harness>>, metrics: Metrics) =>
    middy<SQSEvent, SQSBatchResponse>()
      .use(logMetrics(metrics))
      .use(
        sqsIdempotency({
          store: h.store,
          consumer: 'test',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: false,
          metrics: powertoolsMetrics(metrics),
        }),
      )
      .handler(eachRecord(async () => undefined));

  it('receives the counts, flushed by its own logMetrics middleware after the handler', async () => {
    const h = await harness();
    const out = captureStdout();
    const metrics = new Metrics({ namespace: 'Shop', serviceName: 'orders' });
    const handler = withPowertools(h, metrics);
    await handler(sqsEvent([order('p-1'), order('p-2')]), h.context());
    const docs = flushed(out);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ service: 'orders', RecordsCompleted: 2, Records: 2, RecordsDuplicate: 0 });
    expect(JSON.stringify(docs[0]?._aws)).toContain('"Namespace":"Shop"');
  });

  it('is flushed by the middleware itself when it answers before the handler (all duplicates), as logMetrics then never runs', async () => {
    const h = await harness();
    const out = captureStdout();
    const metrics = new Metrics({ namespace: 'Shop', serviceName: 'orders' });
    const handler = withPowertools(h, metrics);
    await handler(sqsEvent([order('p-3')]), h.context());
    await handler(sqsEvent([order('p-3')]), h.context());
    expect(flushed(out).map((d) => [d.RecordsCompleted, d.RecordsDuplicate])).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });

  it('an EventBridge replay is flushed too', async () => {
    const out = captureStdout();
    const metrics = new Metrics({ namespace: 'Shop', serviceName: 'points' });
    const s = await ebSetup(powertoolsMetrics(metrics));
    const handler = s.build(async () => ({ ok: true }), logMetrics(metrics));
    await handler(s.paid('p-e1'), s.context());
    await handler(s.paid('p-e1'), s.context());
    expect(flushed(out).map((d) => [d.RecordsCompleted, d.RecordsDuplicate, d.Replays])).toEqual([
      [1, 0, 0],
      [0, 1, 1],
    ]);
  });
});
