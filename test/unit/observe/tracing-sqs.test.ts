/**
 * `tracing: openTelemetry()` on sqsIdempotency (MemoryIdempotencyStore, the OTel SDK's in-memory exporter): the span
 * tree of a batch (batch -> record -> claim / effect / complete or release) for fresh, duplicate, failed and
 * in-progress records; the attributes (the key's SHA-256, never the key); status and exceptions; links to the
 * producer's context from `AWSTraceHeader` and a `traceparent` message attribute; the effect span as the active
 * context inside the handler; and nothing traced without the option. DynamoDB Local and the transaction strategy:
 * test/integration/tracing.test.ts.
 */
import { createHash } from 'node:crypto';
import middy from '@middy/core';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { claim, eachRecord, jsonBody, sqsIdempotency, type SqsIdempotencyOptions } from '../../../src/index.js';
import { lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { openTelemetry } from '../../../src/tracing/index.js';
import { everyAttribute, spanTree } from '../../support/tracing.js';

const tree = spanTree();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const QUEUE = 'arn:aws:sqs:eu-west-1:123456789012:orders';

type Order = { orderNo: string; fail?: boolean };
const order = (messageId: string, orderNo: string, extra: Partial<Order> = {}, options: Partial<Parameters<typeof sqsRecord>[0]> = {}) =>
  sqsRecord({ messageId, body: JSON.stringify({ orderNo, ...extra }), queueArn: QUEUE, ...options });

function handler(store: MemoryIdempotencyStore, options: Partial<SqsIdempotencyOptions> = {}, seen: string[] = [], traced = true) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: 'orders',
        key: (r) => jsonBody<Order>(r).orderNo,
        logger: false,
        ...(traced ? { tracing: openTelemetry({ tracer: tree.tracer }) } : {}),
        ...options,
      }),
    )
    .handler(
      eachRecord(async (record: SQSRecord) => {
        const body = jsonBody<Order>(record);
        // The effect's span is the active one: a span the handler starts nests under it.
        seen.push(trace.getActiveSpan()?.spanContext().spanId ?? 'none');
        tree.tracer.startSpan('user work').end();
        if (body.fail === true) throw new Error(`card declined for ${body.orderNo}`);
      }),
    );
}

const invoke = (h: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>, records: SQSRecord[]) =>
  h(sqsEvent(records), lambdaContext({ functionName: 'orders-fn' }));

describe('tracing an SQS batch (claim strategy)', () => {
  it('a fresh record: batch -> record -> claim, effect, complete; the attributes; the user span under the effect', async () => {
    const seen: string[] = [];
    await invoke(handler(new MemoryIdempotencyStore(), {}, seen), [order('m-1', 'order-4711')]);
    const [batch] = tree.named('batch');
    const record = tree.recordSpan('m-1');
    expect(batch?.kind).toBe(SpanKind.CONSUMER);
    expect(tree.parentOf(record)).toBe(batch);
    expect(tree.childrenOf(record)).toEqual(['claim', 'complete', 'effect']);
    expect(batch?.attributes).toMatchObject({
      'messaging.system': 'aws_sqs',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'orders',
      'messaging.batch.message_count': 1,
      'effectively_once.consumer': 'orders',
      'effectively_once.strategy': 'claim',
      'effectively_once.source': 'sqs',
      'effectively_once.records.retried': 0,
    });
    expect(batch?.attributes['effectively_once.requests']).toMatch(/^(batched|per-record)$/);
    expect(record.attributes).toMatchObject({
      'messaging.message.id': 'm-1',
      'effectively_once.outcome': 'completed',
      'effectively_once.key.sha256': sha256('order-4711'),
    });
    expect(record.status.code).toBe(SpanStatusCode.UNSET);
    const [claimSpan] = tree.named('claim');
    expect(claimSpan?.attributes['effectively_once.result']).toBe('claimed');
    const [effect] = tree.named('effect');
    expect(seen).toEqual([effect?.spanContext().spanId]);
    const [user] = tree.spans().filter((s) => s.name === 'user work');
    expect(user?.parentSpanContext?.spanId).toBe(effect?.spanContext().spanId);
    expect(everyAttribute(tree.spans()).some((v) => v.includes('order-4711'))).toBe(false);
  });

  it('a duplicate: its record has a claim span only (the key found COMPLETED), outcome duplicate, no effect', async () => {
    const store = new MemoryIdempotencyStore();
    const h = handler(store);
    await invoke(h, [order('m-1', 'order-1')]);
    tree.clear();
    await invoke(h, [order('m-2', 'order-1')]);
    const record = tree.recordSpan('m-2');
    expect(tree.childrenOf(record)).toEqual(['claim']);
    expect(record.attributes['effectively_once.outcome']).toBe('duplicate');
    expect(record.status.code).toBe(SpanStatusCode.UNSET);
    expect(tree.named('claim')[0]?.attributes['effectively_once.result']).toBe('completed');
  });

  it('a failed record: its effect and record span ERROR with the exception (the key hashed in the message), then the release', async () => {
    const response = await invoke(handler(new MemoryIdempotencyStore()), [
      order('m-1', 'order-9', { fail: true }),
      order('m-2', 'order-10'),
    ]);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    const record = tree.recordSpan('m-1');
    expect(tree.childrenOf(record)).toEqual(['claim', 'effect', 'release']);
    expect(record.status).toEqual({ code: SpanStatusCode.ERROR, message: `card declined for ${sha256('order-9')}` });
    expect(record.attributes['effectively_once.outcome']).toBe('failed');
    expect(record.attributes['error.type']).toBe('Error');
    expect(record.events.map((e) => e.name)).toEqual(['exception']);
    const [effect] = tree.named('effect').filter((s) => tree.parentOf(s) === record);
    expect(effect?.status.code).toBe(SpanStatusCode.ERROR);
    // The release itself went well.
    expect(tree.named('release')[0]?.status.code).toBe(SpanStatusCode.UNSET);
    expect(tree.recordSpan('m-2').attributes['effectively_once.outcome']).toBe('completed');
    expect(tree.named('batch')[0]?.attributes['effectively_once.records.retried']).toBe(1);
    expect(everyAttribute(tree.spans()).some((v) => v.includes('order-9'))).toBe(false);
  });

  it('a record in progress elsewhere: outcome in-progress, not an error, claim span only', async () => {
    const store = new MemoryIdempotencyStore();
    await store.claim({ consumer: 'orders', key: 'order-7', leaseMs: 60_000, messageId: 'another' });
    const response = await invoke(handler(store), [order('m-1', 'order-7')]);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    const record = tree.recordSpan('m-1');
    expect(tree.childrenOf(record)).toEqual(['claim']);
    expect(record.attributes['effectively_once.outcome']).toBe('in-progress');
    expect(record.status.code).toBe(SpanStatusCode.UNSET);
    expect(tree.named('claim')[0]?.attributes['effectively_once.result']).toBe('in-progress');
  });

  it("links each record to its producer's context: AWSTraceHeader (X-Ray) and a traceparent message attribute", async () => {
    const xray = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
    const w3c = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
    await invoke(handler(new MemoryIdempotencyStore()), [
      order('m-1', 'a', {}, { attributes: { AWSTraceHeader: xray } }),
      order('m-2', 'b', {}, { messageAttributes: { traceparent: { stringValue: w3c, dataType: 'String' } } }),
      order('m-3', 'c'),
    ]);
    const linkOf = (id: string) =>
      tree.recordSpan(id).links.map((l) => ({ ...l.context, from: l.attributes?.['effectively_once.link.from'] }));
    expect(linkOf('m-1')).toEqual([
      { traceId: '5759e988bd862e3fe1be46a994272793', spanId: '53995c3f42cd8ad8', traceFlags: 1, isRemote: true, from: 'AWSTraceHeader' },
    ]);
    expect(linkOf('m-2')).toEqual([
      { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0, isRemote: true, from: 'traceparent' },
    ]);
    expect(linkOf('m-3')).toEqual([]);
    // A link, never a parent: the record stays in the invocation's trace.
    expect(tree.recordSpan('m-1').spanContext().traceId).toBe(tree.named('batch')[0]?.spanContext().traceId);
    // The batch span links every message's context, naming the message on the link.
    expect(tree.named('batch')[0]?.links.map((l) => l.attributes?.['messaging.message.id'])).toEqual(['m-1', 'm-2']);
  });

  it('pipelined claims: the same tree, each record under the batch', async () => {
    await invoke(handler(new MemoryIdempotencyStore(), { strategy: claim({ pipelined: true }) }), [order('m-1', 'a'), order('m-2', 'b')]);
    for (const id of ['m-1', 'm-2']) {
      const record = tree.recordSpan(id);
      expect(tree.parentOf(record)?.name).toBe('effectively-once batch');
      expect(tree.childrenOf(record)).toEqual(['claim', 'complete', 'effect']);
    }
  });

  it('a handler without eachRecord: its records completed, or released when it throws, each step under its record', async () => {
    const build = (fn: () => Promise<SQSBatchResponse>) =>
      middy<SQSEvent, SQSBatchResponse>()
        .use(
          sqsIdempotency({
            store: new MemoryIdempotencyStore(),
            key: (r) => jsonBody<Order>(r).orderNo,
            logger: false,
            tracing: openTelemetry({ tracer: tree.tracer }),
          }),
        )
        .handler(fn);
    await invoke(
      build(async () => ({ batchItemFailures: [] })),
      [order('m-1', 'a')],
    );
    expect(tree.childrenOf(tree.recordSpan('m-1'))).toEqual(['claim', 'complete']);
    expect(tree.recordSpan('m-1').attributes['effectively_once.outcome']).toBe('completed');
    tree.clear();
    const response = await invoke(
      build(async () => Promise.reject(new Error('the whole batch failed'))),
      [order('m-2', 'b')],
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-2' }]);
    const record = tree.recordSpan('m-2');
    expect(tree.childrenOf(record)).toEqual(['claim', 'release']);
    expect(record.attributes['effectively_once.outcome']).toBe('failed');
    expect(record.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('without the tracing option nothing is traced, even with a tracer provider registered globally', async () => {
    expect(trace.setGlobalTracerProvider(tree.provider)).toBe(true);
    try {
      await invoke(handler(new MemoryIdempotencyStore(), {}, [], false), [order('m-1', 'a')]);
      expect(tree.spans().map((s) => s.name)).toEqual(['user work']);
      // control: openTelemetry() without a tracer takes the global provider's
      await invoke(handler(new MemoryIdempotencyStore(), { tracing: openTelemetry() }), [order('m-2', 'b')]);
      expect(tree.recordSpan('m-2').instrumentationScope.name).toBe('effectively-once');
    } finally {
      trace.disable();
    }
  });

  it('refuses what is not the plug-in, and openTelemetry() an unknown option or a tracer without startSpan', () => {
    const store = new MemoryIdempotencyStore();
    const build = (tracing: unknown) => sqsIdempotency({ store, key: () => 'k', tracing: tracing as never });
    expect(() => build({ plugin: 'metrics' })).toThrow(/option "tracing" must be what openTelemetry\(\)/);
    expect(() => build(tree.tracer)).toThrow(TypeError);
    expect(() => openTelemetry({ tracer: {} as never })).toThrow(/openTelemetry: option "tracer" must be an OpenTelemetry Tracer/);
    expect(() => openTelemetry({ trace: tree.tracer } as never)).toThrow(/unknown option "trace"/);
  });
});
