/**
 * One invocation's spans, on the OpenTelemetry API: the batch span (CONSUMER, the child of whatever span was active
 * when the middleware started: the Lambda invocation's, with ADOT), one record span per record under it (CONSUMER,
 * linked to its producer's context), and under each record its claim, effect and completion spans. The effect span
 * is the active context while the handler runs. All state is this object's: one per invocation.
 */
import { context as contexts, SpanKind, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { acknowledged, type RecordOutcome } from '../../engine/outcomes.js';
import type { EffectTrace, EffectWrap, InvocationTrace, TracedRecord, TracedStep, TraceStart } from '../../engine/tracing.js';
import { ATTR, commonAttributes, describeOutcome, failed, keyHash, outcomeError, spanName } from './attributes.js';
import { messageFacts, otelLinks, type MessageFacts } from './carriers.js';

/** A record's span, the context its steps start in, and when its last step ended (its span ends then). */
interface RecordSpan {
  readonly span: Span;
  readonly context: Context;
  keyed: boolean;
  done?: { readonly at: number; readonly kind: RecordOutcome['kind'] | undefined };
}

const noEffect: EffectTrace = { within: (run) => run(), end: () => {} };

/** The result's `kind`, when it has one (a store's answer, an outcome): what a step's span says it found. */
function kindOf(result: unknown): string | undefined {
  const kind: unknown = typeof result === 'object' && result !== null ? (result as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' ? kind : undefined;
}

export class OpenTelemetryTrace implements InvocationTrace {
  readonly #tracer: Tracer;
  readonly #strategy: TraceStart['strategy'];
  readonly #batch: Span | undefined;
  readonly #records = new Map<string, RecordSpan>();
  #ended = false;

  constructor(tracer: Tracer, start: TraceStart) {
    this.#tracer = tracer;
    this.#strategy = start.strategy;
    const common = commonAttributes(start.source, start.consumer, start.strategy);
    const facts = start.records.map((record) => ({ id: start.idOf(record), ...messageFacts(start.source, record) }));
    const parent = contexts.active();
    this.#batch = start.single ? undefined : this.#batchSpan(common, facts, parent);
    const under = this.#batch === undefined ? parent : trace.setSpan(parent, this.#batch);
    for (const f of facts) {
      const destination = f.destination === undefined ? {} : { 'messaging.destination.name': f.destination };
      const attributes = { ...common, 'messaging.message.id': f.id, ...destination };
      const links = otelLinks(f.links, (l) => ({ [ATTR.linkFrom]: l.from }));
      const span = tracer.startSpan(spanName(start.single ? 'event' : 'record'), { kind: SpanKind.CONSUMER, attributes, links }, under);
      this.#records.set(f.id, { span, context: trace.setSpan(under, span), keyed: false });
    }
  }

  /** The batch's span: its destination when its records share one, and a link to each message's producer. */
  #batchSpan(common: Attributes, facts: readonly (MessageFacts & { readonly id: string })[], parent: Context): Span {
    const destinations = new Set(facts.map((f) => f.destination));
    const [only] = destinations;
    const destination = destinations.size === 1 && only !== undefined ? { 'messaging.destination.name': only } : {};
    const attributes = { ...common, ...destination, 'messaging.batch.message_count': facts.length };
    // The conventions: a batch's process span links each message's creation context, per-message attributes on the link.
    const links = facts.flatMap((f) => otelLinks(f.links, (l) => ({ 'messaging.message.id': f.id, [ATTR.linkFrom]: l.from })));
    return this.#tracer.startSpan(spanName('batch'), { kind: SpanKind.CONSUMER, attributes, links }, parent);
  }

  /** The record's spans, its key's hash set once it is known. */
  #record(record: TracedRecord): RecordSpan | undefined {
    const found = this.#records.get(record.messageId);
    if (found !== undefined && !found.keyed) {
      found.keyed = true;
      if (found.span.isRecording()) found.span.setAttribute(ATTR.keyHash, keyHash(record.key));
    }
    return found;
  }

  #child(record: RecordSpan, what: string): Span {
    return this.#tracer.startSpan(spanName(what), { kind: SpanKind.INTERNAL }, record.context);
  }

  async step<T>(record: TracedRecord, step: TracedStep, run: () => Promise<T>): Promise<T> {
    const found = this.#record(record);
    if (found === undefined) return run();
    const span = this.#child(found, step);
    let kind: string | undefined;
    try {
      // Active while the request is sent: an instrumented SDK's span nests under it.
      const result = await contexts.with(trace.setSpan(found.context, span), run);
      kind = kindOf(result);
      if (kind !== undefined) span.setAttribute(ATTR.result, kind);
      return result;
    } catch (error) {
      failed(span, error, record.key);
      throw error;
    } finally {
      span.end();
      // A completion or release settles the record (its answer, when it is an outcome, is the record's).
      if (step !== 'claim') found.done = { at: Date.now(), kind: kind as RecordOutcome['kind'] | undefined };
    }
  }

  effect(record: TracedRecord): EffectTrace {
    const found = this.#record(record);
    if (found === undefined) return noEffect;
    const span = this.#child(found, 'effect');
    const active = trace.setSpan(found.context, span);
    let ended = false;
    return {
      within: (run) => contexts.with(active, run),
      end: (...error: [unknown?]) => {
        if (ended) return;
        ended = true;
        if (error.length > 0) failed(span, error[0], record.key);
        span.end();
      },
    };
  }

  async run(record: TracedRecord, run: (wrap: EffectWrap) => Promise<RecordOutcome>): Promise<RecordOutcome> {
    const found = this.#record(record);
    if (found === undefined) return run((effect) => effect());
    let completion: { readonly span: Span; readonly effectSucceeded: boolean } | undefined;
    const wrap: EffectWrap = async (effect) => {
      const traced = this.effect(record);
      try {
        const result = await traced.within(effect);
        traced.end();
        completion = this.#completion(found, true);
        return result;
      } catch (error) {
        traced.end(error);
        completion = this.#completion(found, false);
        throw error;
      }
    };
    // The completion's requests are sent in the record's context (the effect's is over by then).
    const outcome = await contexts.with(found.context, () => run(wrap));
    if (completion !== undefined) {
      completion.span.setAttribute(ATTR.result, outcome.kind);
      // A completion that failed on its own (a lost lease, a refused commit); a failed effect's release is no error.
      const error = completion.effectSucceeded ? outcomeError(outcome) : undefined;
      if (error !== undefined) failed(completion.span, error, record.key);
      completion.span.end();
    }
    found.done = { at: Date.now(), kind: outcome.kind };
    return outcome;
  }

  /** The span from the effect's end to the outcome: a claim completed or released, a transaction committed (none when its handler threw). */
  #completion(found: RecordSpan, succeeded: boolean): { readonly span: Span; readonly effectSucceeded: boolean } | undefined {
    const what = this.#strategy === 'transaction' ? (succeeded ? 'commit' : undefined) : succeeded ? 'complete' : 'release';
    return what === undefined ? undefined : { span: this.#child(found, what), effectSucceeded: succeeded };
  }

  end(outcomes: readonly RecordOutcome[], facts: { readonly requests?: string | undefined; readonly error?: unknown } = {}): void {
    if (this.#ended) return;
    this.#ended = true;
    const byId = new Map(outcomes.map((o) => [o.messageId, o] as const));
    for (const [id, found] of this.#records) {
      const outcome = byId.get(id);
      if (outcome?.key !== undefined) this.#record({ messageId: id, key: outcome.key });
      if (outcome !== undefined) describeOutcome(found.span, outcome);
      else if (facts.error !== undefined) failed(found.span, facts.error);
      // Ends when its last step did, unless a later step changed its outcome (a DLQ sent after the batch settled).
      const done =
        found.done !== undefined && (found.done.kind === undefined || found.done.kind === outcome?.kind) ? found.done.at : undefined;
      found.span.end(done);
    }
    const batch = this.#batch;
    if (batch === undefined) return;
    if (facts.requests !== undefined) batch.setAttribute(ATTR.requests, facts.requests);
    batch.setAttribute(ATTR.retried, outcomes.filter((o) => !acknowledged(o)).length);
    if (facts.error !== undefined) failed(batch, facts.error);
    batch.end();
  }
}
