/**
 * The tracing hooks: what the lifecycles call on a middleware's `tracing` option, at the points they already have
 * (the claim, the record's run, the settle, the answer). `openTelemetry()` from `effectively-once/tracing`
 * implements them (observe/tracing/). Here are only their types and the option's rule: a handler given no `tracing`
 * option calls none of them, and bundles no tracing code.
 */
import type { OptionRule } from './options.js';
import type { RecordOutcome } from './outcomes.js';

/** A record's store steps that get a span of their own (a transaction's commit is timed by {@link InvocationTrace.run}). */
export type TracedStep = 'claim' | 'complete' | 'release';

/** A record as a span names it: its delivery's id, and its business key (put on a span only as a hash). */
export interface TracedRecord {
  readonly messageId: string;
  readonly key: string;
}

/** What one invocation's trace starts from. */
export interface TraceStart {
  /** The source's name (`sqs`, `kafka`, `eventbridge`, ...): how its records carry a producer's trace context. */
  readonly source: string;
  readonly consumer: string;
  readonly strategy: 'claim' | 'transaction';
  /** The delivery's records, each id once, in delivery order (one EventBridge event: the event). */
  readonly records: readonly unknown[];
  readonly idOf: (record: unknown) => string;
  /** One event (EventBridge): its record span is the trace's root, with no batch span above it. */
  readonly single: boolean;
}

/** A record's effect span: started when its handler may start, the active context while the handler runs. */
export interface EffectTrace {
  /** Runs the handler with the effect span as the active context (spans it starts nest under it). */
  within<T>(run: () => Promise<T>): Promise<T>;
  /** Ends the span, with `error` recorded when the handler threw. Once; later calls do nothing. */
  end(error?: unknown): void;
}

/** Runs a record's handler inside its effect span (see {@link InvocationTrace.run}). */
export type EffectWrap = <T>(effect: () => Promise<T>) => Promise<T>;

/**
 * One invocation's trace: a span per batch (or event), per record, and per step of a record. Per invocation,
 * never shared; none of its methods throws (a step's own error is rethrown as it was).
 */
export interface InvocationTrace {
  /** Runs one store step of a record in its span (the error it throws recorded on it, then rethrown). */
  step<T>(record: TracedRecord, step: TracedStep, run: () => Promise<T>): Promise<T>;
  /** Starts the record's effect span; `within` makes it the active context, `end` ends it. */
  effect(record: TracedRecord): EffectTrace;
  /**
   * Runs a record under its strategy (`run` settles it): the effect span around what `run` hands to `wrap`, then
   * the completion span (`complete` or `release` for a claim, `commit` for a transaction) until the outcome.
   */
  run(record: TracedRecord, run: (wrap: EffectWrap) => Promise<RecordOutcome>): Promise<RecordOutcome>;
  /**
   * Every record's final outcome: ends the record spans and the batch span. `requests`: how the claims were sent;
   * `error`: the batch failed as a whole (no outcomes).
   */
  end(outcomes: readonly RecordOutcome[], facts?: { readonly requests?: string | undefined; readonly error?: unknown }): void;
}

/** The value of a middleware's `tracing` option: what `openTelemetry()` from `effectively-once/tracing` returns. */
export interface TracingPlugin {
  readonly plugin: 'tracing';
  /** Starts one invocation's trace (its batch span, or its event's span). */
  start(start: TraceStart): InvocationTrace;
}

/** Rule of the `tracing` option. */
export const tracingPluginRule: OptionRule = {
  expected: "what openTelemetry() from 'effectively-once/tracing' returns",
  check: (v: unknown) =>
    typeof v === 'object' &&
    v !== null &&
    (v as { plugin?: unknown }).plugin === 'tracing' &&
    typeof (v as TracingPlugin).start === 'function',
};
