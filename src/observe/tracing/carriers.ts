/**
 * Where a message carries its producer's trace context, source by source, and what it is read into: the span
 * context a record's span links to (the OTel messaging conventions link a batch's process spans to each message's
 * creation context, never parent them). Read here, in the tracing plug-in, so that a handler without it carries
 * none of this:
 *
 * - SQS: the system attribute `AWSTraceHeader` (X-Ray's `Root=1-<8 hex>-<24 hex>;Parent=<16 hex>;Sampled=1`, set by
 *   an X-Ray-traced sender, and by EventBridge or SNS delivering to the queue), and a message attribute
 *   `traceparent` (W3C, with `tracestate`) that an OTel-instrumented sender sets.
 * - Kafka: the headers `traceparent` and `tracestate` (bytes, read as UTF-8).
 * - EventBridge: `detail.traceparent` and `detail.tracestate`, when the producer puts them there. EventBridge itself
 *   hands a Lambda target the X-Ray header as the invocation's own trace (Lambda's, not the event's): the
 *   invocation's span, the parent of ours, is then already in the producer's trace.
 * - Kinesis and DynamoDB Streams records carry no headers: no link.
 */
import { createTraceState, isSpanContextValid, TraceFlags, type Attributes, type Link, type SpanContext } from '@opentelemetry/api';
import { isPlainObject } from '../../engine/options.js';

/** A producer's context as a record carries it, and where it was read from (`AWSTraceHeader`, `traceparent`). */
export interface ProducerLink {
  readonly context: SpanContext;
  readonly from: string;
}

/** What the spans say of one message: its producers' contexts, and the queue, topic or stream it came from. */
export interface MessageFacts {
  readonly links: readonly ProducerLink[];
  readonly destination: string | undefined;
}

const HEX = /^[0-9a-f]+$/;
const hex = (text: string | undefined, length: number): string | undefined =>
  text !== undefined && text.length === length && HEX.test(text) ? text : undefined;

/** A span context, or `undefined` when the ids are not valid (all zeros, wrong length). */
function spanContext(traceId: string, spanId: string, sampled: boolean, traceState?: string): SpanContext | undefined {
  const state = traceState === undefined ? {} : { traceState: createTraceState(traceState) };
  const context = { traceId, spanId, traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true, ...state };
  return isSpanContextValid(context) ? context : undefined;
}

/**
 * An X-Ray trace header (`Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1`, fields in any
 * order) as a W3C span context: the trace id is the root's epoch and unique parts joined (32 hex), the span id its
 * `Parent`. A header without a `Parent` (a root no span has sent yet) names no span to link to.
 */
export function fromXRayHeader(header: string): SpanContext | undefined {
  const fields = new Map(header.split(';').map((part) => part.trim().split('=', 2) as [string, string | undefined]));
  const [version, epoch, unique] = (fields.get('Root') ?? '').toLowerCase().split('-');
  const traceId = version === '1' ? `${hex(epoch, 8) ?? ''}${hex(unique, 24) ?? ''}` : '';
  const spanId = hex(fields.get('Parent')?.toLowerCase(), 16);
  if (traceId.length !== 32 || spanId === undefined) return undefined;
  return spanContext(traceId, spanId, fields.get('Sampled') === '1');
}

/** A W3C `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`; a later version may add fields) as a span context. */
export function fromTraceparent(traceparent: string, tracestate?: string): SpanContext | undefined {
  const [version = '', traceId = '', spanId = '', flags = '', ...rest] = traceparent.trim().split('-');
  if (hex(version, 2) === undefined || version === 'ff' || (version === '00' && rest.length > 0)) return undefined;
  if (hex(traceId, 32) === undefined || hex(spanId, 16) === undefined || hex(flags, 2) === undefined) return undefined;
  return spanContext(traceId, spanId, (Number.parseInt(flags, 16) & TraceFlags.SAMPLED) !== 0, tracestate);
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The last segment of an ARN's resource (`arn:aws:sqs:eu-west-1:123:orders` -> `orders`; a stream's `stream/name` -> `name`). */
function arnName(arn: unknown, marker?: string): string | undefined {
  const value = text(arn);
  if (value === undefined) return undefined;
  if (marker === undefined) return value.slice(value.lastIndexOf(':') + 1) || undefined;
  const at = value.indexOf(marker);
  return at < 0 ? undefined : value.slice(at + marker.length).split('/')[0] || undefined;
}

function links(found: readonly (readonly [string, SpanContext | undefined])[]): ProducerLink[] {
  return found.flatMap(([from, context]) => (context === undefined ? [] : [{ from, context }]));
}

function sqsFacts(record: Record<string, unknown>): MessageFacts {
  const attributes = isPlainObject(record['attributes']) ? record['attributes'] : {};
  const messageAttributes = isPlainObject(record['messageAttributes']) ? record['messageAttributes'] : {};
  const attribute = (name: string) => {
    const value = messageAttributes[name];
    return isPlainObject(value) ? text(value['stringValue']) : undefined;
  };
  const xray = text(attributes['AWSTraceHeader']);
  const traceparent = attribute('traceparent');
  return {
    links: links([
      ['AWSTraceHeader', xray === undefined ? undefined : fromXRayHeader(xray)],
      ['traceparent', traceparent === undefined ? undefined : fromTraceparent(traceparent, attribute('tracestate'))],
    ]),
    destination: arnName(record['eventSourceARN']),
  };
}

/** A Kafka header's last value as text (Lambda sends each as byte values; Java's are signed). */
function kafkaHeader(record: Record<string, unknown>, name: string): string | undefined {
  const headers = Array.isArray(record['headers']) ? (record['headers'] as unknown[]) : [];
  let found: string | undefined;
  for (const header of headers) {
    const bytes = isPlainObject(header) ? header[name] : undefined;
    if (Array.isArray(bytes) && bytes.every((b) => Number.isInteger(b))) {
      found = Buffer.from(Uint8Array.from(bytes as number[], (b) => b & 0xff)).toString('utf8');
    }
  }
  return found;
}

function kafkaFacts(record: Record<string, unknown>): MessageFacts {
  const traceparent = kafkaHeader(record, 'traceparent');
  const context = traceparent === undefined ? undefined : fromTraceparent(traceparent, kafkaHeader(record, 'tracestate'));
  return { links: links([['traceparent', context]]), destination: text(record['topic']) };
}

function eventBridgeFacts(event: Record<string, unknown>): MessageFacts {
  const detail = isPlainObject(event['detail']) ? event['detail'] : {};
  const traceparent = text(detail['traceparent']);
  const context = traceparent === undefined ? undefined : fromTraceparent(traceparent, text(detail['tracestate']));
  return { links: links([['detail.traceparent', context]]), destination: undefined };
}

/** What each source's records say; a source not listed carries no context and names no destination. */
const READERS: Readonly<Record<string, (record: Record<string, unknown>) => MessageFacts>> = {
  sqs: sqsFacts,
  kafka: kafkaFacts,
  eventbridge: eventBridgeFacts,
  kinesis: (record) => ({ links: [], destination: arnName(record['eventSourceARN'], ':stream/') }),
  'dynamodb-streams': (record) => ({ links: [], destination: arnName(record['eventSourceARN'], ':table/') }),
};

/** The facts of one record of `source`; a record that cannot be read has none (tracing never fails a record). */
export function messageFacts(source: string, record: unknown): MessageFacts {
  const read = READERS[source];
  if (read === undefined || !isPlainObject(record)) return { links: [], destination: undefined };
  try {
    return read(record);
  } catch {
    return { links: [], destination: undefined };
  }
}

/** OpenTelemetry links to these producers' contexts, each context once, with `attributes` on each. */
export function otelLinks(found: readonly ProducerLink[], attributes: (link: ProducerLink) => Attributes): Link[] {
  const seen = new Set<string>();
  return found.flatMap((link) => {
    const id = `${link.context.traceId}-${link.context.spanId}`;
    if (seen.has(id)) return [];
    seen.add(id);
    return [{ context: link.context, attributes: attributes(link) }];
  });
}
