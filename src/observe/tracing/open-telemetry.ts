/**
 * `openTelemetry()`, the tracing plug-in (`effectively-once/tracing`): a middleware given it as `tracing` traces each
 * batch or event with spans on the OpenTelemetry API (invocation-trace.ts). Only a handler that imports it bundles
 * this code and `@opentelemetry/api`.
 */
import { trace, type Tracer } from '@opentelemetry/api';
import { checkOptions, hasMethods } from '../../engine/options.js';
import type { InvocationTrace, TraceStart, TracingPlugin } from '../../engine/tracing.js';
import { OpenTelemetryTrace } from './invocation-trace.js';

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /**
   * The tracer the spans are started with. Default: `trace.getTracer('effectively-once')` of the global tracer
   * provider (the one the ADOT Lambda layer or your own SDK set-up registers, even after this call).
   */
  readonly tracer?: Tracer;
}

const RULES = { tracer: hasMethods('an OpenTelemetry Tracer (with startSpan)', 'startSpan') };

/** The name the spans' instrumentation scope carries. */
const SCOPE = 'effectively-once';

/**
 * The `tracing` plug-in of every middleware: spans on the OpenTelemetry API
 * for each batch (or EventBridge event), each record, and each record's
 * claim, effect and completion (`complete`, `release`, or a transaction's
 * `commit`). The effect's span is the active context while the handler runs,
 * so the spans your handler and instrumented SDK clients start nest under
 * it. A record's span links to its producer's trace context (SQS
 * `AWSTraceHeader` or a `traceparent` message attribute, Kafka
 * `traceparent` header, EventBridge `detail.traceparent`). Spans carry the
 * consumer, the strategy, the outcome, the message id, and the key's SHA-256,
 * never the key. With no tracer provider registered the API's no-op spans
 * cost next to nothing. See docs/observability.md.
 *
 * @throws TypeError when an option is unknown or not a tracer.
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
 * import { DynamoDBClaimStore, eachRecord, jsonBody, sqsIdempotency } from 'effectively-once';
 * import { openTelemetry } from 'effectively-once/tracing';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<SQSEvent, SQSBatchResponse>()
 *   .use(sqsIdempotency({ store, consumer: 'mailer', key: (r) => jsonBody<{ id: string }>(r).id, tracing: openTelemetry() }))
 *   .handler(eachRecord(async (record) => {
 *     console.log('mailing', jsonBody<{ id: string }>(record).id); // runs in the record's effect span
 *   }));
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): TracingPlugin {
  checkOptions('openTelemetry', options, RULES);
  // A proxy of the global provider: it follows a provider registered later (the ADOT layer's, or a test's).
  const tracer = options.tracer ?? trace.getTracer(SCOPE);
  return Object.freeze({
    plugin: 'tracing' as const,
    start: (start: TraceStart): InvocationTrace => new OpenTelemetryTrace(tracer, start),
  });
}
