/**
 * What the spans are named and what they carry: the OTel messaging conventions' attributes where they fit
 * (`messaging.*`, `error.type`), and the library's own under `effectively_once.*`. docs/observability.md lists them.
 */
import type { Attributes, Exception, Span } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import { sha256 } from '../../engine/hashing.js';
import type { RecordOutcome } from '../../engine/outcomes.js';

/** Span names: `effectively-once batch`, `... record` (`... event` for one event), `... claim`, and so on. */
export const spanName = (what: string): string => `effectively-once ${what}`;

/** The library's own attributes. */
export const ATTR = {
  consumer: 'effectively_once.consumer',
  strategy: 'effectively_once.strategy',
  source: 'effectively_once.source',
  outcome: 'effectively_once.outcome',
  reason: 'effectively_once.outcome.reason',
  /** SHA-256 (hex) of the business key: what a store with `hashKeys` puts after `consumer#` in the record id. */
  keyHash: 'effectively_once.key.sha256',
  requests: 'effectively_once.requests',
  retried: 'effectively_once.records.retried',
  /** A store step's answer (`claimed`, `completed`, `in-progress`; a completion's outcome). */
  result: 'effectively_once.result',
  /** Where a link's context was read from (`AWSTraceHeader`, `traceparent`, `detail.traceparent`). */
  linkFrom: 'effectively_once.link.from',
} as const;

/** `messaging.system` by source: the conventions' well-known values where there is one, else ours in their style. */
const SYSTEMS: Readonly<Record<string, string>> = {
  sqs: 'aws_sqs',
  kafka: 'kafka',
  kinesis: 'aws_kinesis',
  'dynamodb-streams': 'aws_dynamodb_streams',
  eventbridge: 'aws_eventbridge',
};

/** The attributes every batch and record span carries. */
export function commonAttributes(source: string, consumer: string, strategy: string): Attributes {
  return {
    'messaging.system': SYSTEMS[source] ?? source,
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    [ATTR.consumer]: consumer,
    [ATTR.strategy]: strategy,
    [ATTR.source]: source,
  };
}

/** The key's hash, never the key itself: a span is exported where the idempotency table's readers may not look. */
export const keyHash = (key: string): string => sha256(key);

/** `text` with every occurrence of `key` replaced by its hash: an id `consumer#key` then reads as a `hashKeys` store writes it. */
function withoutKey(text: string, key: string | undefined): string {
  return key === undefined || key.length === 0 ? text : text.replaceAll(key, keyHash(key));
}

/**
 * Records `error` on `span` (the exception event, `error.type` its name) and sets the status to ERROR. The
 * record's key never goes out: in the message, and in the stack's first line (which repeats it), it is replaced by
 * its hash; the stack's frames are kept.
 */
export function failed(span: Span, error: unknown, key?: string): void {
  // A span no provider records (no SDK registered): nothing to hash or format.
  if (!span.isRecording()) return;
  const name = error instanceof Error ? error.name : typeof error;
  const message = withoutKey(error instanceof Error ? error.message : String(error), key);
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : undefined;
  const at = stack?.search(/\n\s+at /) ?? -1;
  const frames = stack !== undefined && at >= 0 ? stack.slice(at) : '';
  const exception: Exception = { name, message, ...(stack === undefined ? {} : { stack: `${name}: ${message}${frames}` }) };
  span.recordException(exception);
  span.setAttribute('error.type', name);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * The outcome's error when it is one: a record that failed, was invalid, lost its lease, was cut off by the
 * deadline, went to the DLQ, or met a business conflict that is retried. A duplicate, a record in progress
 * elsewhere and a final conflict are answers, not errors.
 */
export function outcomeError(outcome: RecordOutcome): unknown {
  if (outcome.kind === 'conflict' && outcome.final) return undefined;
  return 'error' in outcome ? outcome.error : undefined;
}

/** Sets a record's final outcome on its span (status ERROR with the error recorded, when it is one). */
export function describeOutcome(span: Span, outcome: RecordOutcome): void {
  span.setAttribute(ATTR.outcome, outcome.kind);
  if (outcome.kind === 'not-started') span.setAttribute(ATTR.reason, outcome.reason);
  const error = outcomeError(outcome);
  if (error !== undefined) failed(span, error, outcome.key);
}
