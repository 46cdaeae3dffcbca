/**
 * The OpenTelemetry SDK's in-memory exporter for the tracing tests: a tracer whose ended spans are kept, the
 * async-hooks context manager (registered globally while a file's tests run: the effect span must be the active
 * context inside the handler), and readers of the span tree (by name, by parent, the links).
 */
import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export type { ReadableSpan };

export interface SpanTree {
  readonly tracer: Tracer;
  readonly provider: TracerProvider;
  /** Every ended span, in the order they ended. */
  spans(): ReadableSpan[];
  /** The spans named `effectively-once <what>`. */
  named(what: string): ReadableSpan[];
  /** The one span named `effectively-once <what>` whose `messaging.message.id` (or whose record's) is `messageId`. */
  recordSpan(messageId: string, what?: string): ReadableSpan;
  /** The spans whose parent is `span`, by name. */
  childrenOf(span: ReadableSpan): string[];
  parentOf(span: ReadableSpan): ReadableSpan | undefined;
  clear(): void;
}

const idOf = (span: ReadableSpan) => span.spanContext().spanId;

/** An in-memory span tree for one test file; the context manager is registered for the file and removed after it. */
export function spanTree(): SpanTree {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
  });
  afterAll(() => {
    context.disable();
    trace.disable();
  });
  beforeEach(() => exporter.reset());
  const spans = () => exporter.getFinishedSpans();
  const named = (what: string) => spans().filter((s) => s.name === `effectively-once ${what}`);
  const parentOf = (span: ReadableSpan) => spans().find((s) => idOf(s) === span.parentSpanContext?.spanId);
  return {
    tracer: provider.getTracer('test'),
    provider,
    spans,
    named,
    recordSpan(messageId, what = 'record') {
      const found = named(what).filter((s) => s.attributes['messaging.message.id'] === messageId);
      if (found.length !== 1)
        throw new Error(
          `${found.length} ${what} spans for ${messageId}: ${spans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      return found[0] as ReadableSpan;
    },
    childrenOf: (span) =>
      spans()
        .filter((s) => s.parentSpanContext?.spanId === idOf(span))
        .map((s) => s.name.replace(/^effectively-once /, ''))
        .sort(),
    parentOf,
    clear: () => exporter.reset(),
  };
}

/** Every attribute value of every span and link, as text: where a raw key must never appear. */
export function everyAttribute(spans: readonly ReadableSpan[]): string[] {
  return spans.flatMap((s) => [
    ...Object.values(s.attributes).map(String),
    ...s.links.flatMap((l) => Object.values(l.attributes ?? {}).map(String)),
    ...s.events.flatMap((e) => Object.values(e.attributes ?? {}).map(String)),
  ]);
}
