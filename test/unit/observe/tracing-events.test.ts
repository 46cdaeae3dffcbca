/**
 * `tracing: openTelemetry()` on eventBridgeIdempotency and kafkaIdempotency (MemoryIdempotencyStore, the OTel SDK's
 * in-memory exporter): an event's span under the invocation's (no batch span), with its claim, effect and
 * completion; a replay, a failure and an event in progress elsewhere; `eventBridgeHandler` runs the handler in the effect's
 * span; links from `detail.traceparent` and a Kafka `traceparent` header. And the readers of the producer's context.
 */
import { createHash } from 'node:crypto';
import middy from '@middy/core';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import type { EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  eachRecord,
  eventBridgeIdempotency,
  eventBridgeHandler,
  kafkaIdempotency,
  kafkaValue,
  type KafkaBatchResponse,
  type KafkaEvent,
  type KafkaRecord,
} from '../../../src/index.js';
import { fromTraceparent, fromXRayHeader } from '../../../src/observe/tracing/carriers.js';
import { eventBridgeEvent, kafkaEvent, lambdaContext, MemoryIdempotencyStore } from '../../../src/testing/index.js';
import { openTelemetry } from '../../../src/tracing/index.js';
import { everyAttribute, spanTree } from '../../support/tracing.js';

const tree = spanTree();
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

type Paid = EventBridgeEvent<'OrderPaid', { orderNo: string; fail?: boolean; traceparent?: string }>;
const paid = (id: string, detail: Paid['detail']): Paid => eventBridgeEvent({ id, detailType: 'OrderPaid', source: 'shop', detail });

function ebHandler(store: MemoryIdempotencyStore, wrap = true) {
  const fn = async (event: Paid) => {
    tree.tracer.startSpan('user work').end();
    if (event.detail.fail === true) throw new Error(`declined ${event.detail.orderNo}`);
    return { ok: event.detail.orderNo };
  };
  return middy<Paid, unknown>()
    .use(
      eventBridgeIdempotency<Paid>({
        store,
        consumer: 'points',
        key: (e) => e.detail.orderNo,
        logger: false,
        tracing: openTelemetry({ tracer: tree.tracer }),
      }),
    )
    .handler(wrap ? eventBridgeHandler<Paid, unknown>(fn) : fn);
}

/** Runs the handler under an invocation span (what ADOT's Lambda instrumentation would be). */
async function invokeUnder<T>(run: () => Promise<T>): Promise<{ result: T | Error; invocation: string }> {
  const span = tree.tracer.startSpan('lambda invocation');
  try {
    const result = await context.with(trace.setSpan(context.active(), span), () => run().catch((error: Error) => error));
    return { result, invocation: span.spanContext().spanId };
  } finally {
    span.end();
  }
}

const ctx = () => lambdaContext({ functionName: 'points-fn' });

describe('tracing an EventBridge event', () => {
  it('a fresh event: its span under the invocation, with claim, effect (active in eventBridgeHandler) and complete', async () => {
    const { invocation } = await invokeUnder(() => ebHandler(new MemoryIdempotencyStore())(paid('e-1', { orderNo: 'o-1' }), ctx()));
    const event = tree.recordSpan('e-1', 'event');
    expect(event.parentSpanContext?.spanId).toBe(invocation);
    expect(tree.named('batch')).toEqual([]);
    expect(tree.childrenOf(event)).toEqual(['claim', 'complete', 'effect']);
    expect(event.attributes).toMatchObject({
      'messaging.system': 'aws_eventbridge',
      'effectively_once.outcome': 'completed',
      'effectively_once.strategy': 'claim',
      'effectively_once.key.sha256': sha256('o-1'),
    });
    const [user] = tree.spans().filter((s) => s.name === 'user work');
    expect(user === undefined ? undefined : tree.parentOf(user)?.name).toBe('effectively-once effect');
  });

  it('a handler not wrapped in eventBridgeHandler still gets its effect span (not the active one)', async () => {
    await invokeUnder(() => ebHandler(new MemoryIdempotencyStore(), false)(paid('e-1', { orderNo: 'o-1' }), ctx()));
    expect(tree.childrenOf(tree.recordSpan('e-1', 'event'))).toEqual(['claim', 'complete', 'effect']);
    const [user] = tree.spans().filter((s) => s.name === 'user work');
    expect(user === undefined ? undefined : tree.parentOf(user)?.name).toBe('lambda invocation');
  });

  it('a replay: claim only, outcome duplicate', async () => {
    const store = new MemoryIdempotencyStore();
    await ebHandler(store)(paid('e-1', { orderNo: 'o-1' }), ctx());
    tree.clear();
    await ebHandler(store)(paid('e-2', { orderNo: 'o-1' }), ctx());
    const event = tree.recordSpan('e-2', 'event');
    expect(tree.childrenOf(event)).toEqual(['claim']);
    expect(event.attributes['effectively_once.outcome']).toBe('duplicate');
  });

  it('a failure: the event span ERROR (the key hashed in the message), the effect ERROR, the claim released', async () => {
    const { result } = await invokeUnder(() => ebHandler(new MemoryIdempotencyStore())(paid('e-1', { orderNo: 'o-9', fail: true }), ctx()));
    expect(result).toBeInstanceOf(Error);
    const event = tree.recordSpan('e-1', 'event');
    expect(tree.childrenOf(event)).toEqual(['claim', 'effect', 'release']);
    expect(event.status).toEqual({ code: SpanStatusCode.ERROR, message: `declined ${sha256('o-9')}` });
    expect(tree.named('effect')[0]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(everyAttribute(tree.spans()).some((v) => v.includes('o-9'))).toBe(false);
  });

  it('in progress elsewhere: outcome in-progress, thrown to the async retry, the claim span only', async () => {
    const store = new MemoryIdempotencyStore();
    await store.claim({ consumer: 'points', key: 'o-7', leaseMs: 60_000, messageId: 'another' });
    const { result } = await invokeUnder(() => ebHandler(store)(paid('e-1', { orderNo: 'o-7' }), ctx()));
    expect((result as Error).name).toBe('IdempotencyInProgressError');
    const event = tree.recordSpan('e-1', 'event');
    expect(tree.childrenOf(event)).toEqual(['claim']);
    expect(event.attributes['effectively_once.outcome']).toBe('in-progress');
    expect(event.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('links the event to a traceparent its producer put in detail', async () => {
    const w3c = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await ebHandler(new MemoryIdempotencyStore())(paid('e-1', { orderNo: 'o-1', traceparent: w3c }), ctx());
    const [link] = tree.recordSpan('e-1', 'event').links;
    expect(link?.context).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
    expect(link?.attributes?.['effectively_once.link.from']).toBe('detail.traceparent');
  });
});

describe('tracing a Kafka batch', () => {
  it('links each record to its traceparent header, names the topic, and traces its claim, effect and completion', async () => {
    const w3c = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const event = kafkaEvent([
      { topic: 'orders', partition: 0, offset: 5, value: '{"orderNo":"k-1"}', headers: { traceparent: w3c } },
      { topic: 'orders', partition: 0, offset: 6, value: '{"orderNo":"k-2"}' },
    ]);
    await middy<KafkaEvent, KafkaBatchResponse>()
      .use(
        kafkaIdempotency({
          store: new MemoryIdempotencyStore(),
          consumer: 'orders',
          key: (r) => kafkaValue<{ orderNo: string }>(r).orderNo,
          logger: false,
          tracing: openTelemetry({ tracer: tree.tracer }),
        }),
      )
      .handler(eachRecord(async (_record: KafkaRecord) => {}))(event, ctx());
    const record = tree.recordSpan('orders-0:5');
    expect(record.attributes).toMatchObject({ 'messaging.system': 'kafka', 'messaging.destination.name': 'orders' });
    expect(record.links.map((l) => l.context.spanId)).toEqual(['00f067aa0ba902b7']);
    expect(tree.recordSpan('orders-0:6').links).toEqual([]);
    expect(tree.childrenOf(record)).toEqual(['claim', 'complete', 'effect']);
  });
});

describe("reading a producer's context", () => {
  it('turns an X-Ray header into a W3C trace id and span id, its fields in any order; refuses a malformed one', () => {
    expect(fromXRayHeader('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1')).toMatchObject({
      traceId: '5759e988bd862e3fe1be46a994272793',
      spanId: '53995c3f42cd8ad8',
      traceFlags: 1,
    });
    expect(fromXRayHeader('Sampled=0;Parent=53995C3F42CD8AD8;Root=1-5759E988-BD862E3FE1BE46A994272793;Lineage=a87bd80c:1')).toMatchObject({
      traceId: '5759e988bd862e3fe1be46a994272793',
      spanId: '53995c3f42cd8ad8',
      traceFlags: 0,
    });
    for (const bad of [
      '',
      'Root=1-5759e988-bd862e3fe1be46a994272793',
      'Root=2-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8',
      'Root=1-xyz;Parent=53995c3f42cd8ad8',
      'Root=1-00000000-000000000000000000000000;Parent=53995c3f42cd8ad8',
    ]) {
      expect(fromXRayHeader(bad), bad).toBeUndefined();
    }
  });

  it('reads a W3C traceparent (with its tracestate); refuses a malformed or invalid one', () => {
    const context = fromTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'vendor=abc');
    expect(context).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
    expect(context?.traceState?.get('vendor')).toBe('abc');
    // A later version may add fields; version 00 may not; ff is invalid; all-zero ids are invalid.
    expect(fromTraceparent('01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what')).toBeDefined();
    for (const bad of [
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what',
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
      'nonsense',
    ]) {
      expect(fromTraceparent(bad), bad).toBeUndefined();
    }
  });
});
