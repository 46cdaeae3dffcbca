/**
 * The metrics edge: turns each batch (or event) line into one CloudWatch
 * EMF document and writes it, or hands the counts to a Powertools `Metrics`
 * instance. Like the log line it is an observation of outcomes already
 * settled: a failing sink never fails or delays a batch.
 */
import {
  emfDocument,
  emfLimits,
  invalidDimension,
  invalidNamespace,
  metricData,
  type EmfDocument,
  type MetricDatum,
  type MetricUnit,
} from './emf.js';
import { summarize } from '../engine/outcomes.js';
import { isPlainObject, type OptionRule } from '../engine/options.js';
import type { BatchLogLine } from './log.js';

/**
 * What this library needs of a Powertools `Metrics` instance (from
 * `@aws-lambda-powertools/metrics`), typed by shape so the library does not
 * depend on it.
 */
export interface PowertoolsMetricsLike {
  addMetric(name: string, unit: MetricUnit, value: number): unknown;
  publishStoredMetrics(): unknown;
}

/** Options of the EMF metrics line (the `metrics` option of both middlewares). */
export interface MetricsOptions {
  /** CloudWatch namespace. Default `EffectivelyOnce`. */
  readonly namespace?: string;
  /** Extra dimensions, the same on every document (e.g. `{ Service: 'orders' }`), added to `Consumer` and `Source`. */
  readonly dimensions?: Readonly<Record<string, string>>;
  /** Receives each document. Default: one JSON line on stdout, where Lambda's log agent extracts it. */
  readonly emit?: (document: EmfDocument) => void;
}

/** The `metrics` option: EMF options, a Powertools `Metrics` instance, or `false` for none. */
export type MetricsOption = MetricsOptions | PowertoolsMetricsLike | false;

/** Defaults of the EMF line. */
export const metricsDefaults = { namespace: 'EffectivelyOnce' };

/**
 * Default EMF writer: one JSON line written straight to stdout. Not
 * `console.log`: Lambda's runtime prefixes its lines (time, request id),
 * and an EMF document must be the whole log event.
 */
export function emfStdoutWriter(document: EmfDocument): void {
  process.stdout.write(`${JSON.stringify(document)}\n`);
}

/** The dimension names the library sets itself. */
const OWN_DIMENSIONS = ['Consumer', 'Source'];

function isPowertools(v: unknown): v is PowertoolsMetricsLike {
  return isPlainObject(v) && typeof v.addMetric === 'function' && typeof v.publishStoredMetrics === 'function';
}

/** Names a user's dimension may not take: ours, and the metrics' own (they share the document's root). */
const TAKEN_NAMES: ReadonlySet<string> = new Set([
  ...OWN_DIMENSIONS,
  ...metricData({ counts: summarize([]), retried: 0, replays: 0, durationMs: 0 }).map((d) => d.name),
]);

function validDimensions(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  const entries = Object.entries(v);
  if (entries.length > emfLimits.dimensions - OWN_DIMENSIONS.length) return false;
  return entries.every(
    ([name, value]) => typeof value === 'string' && !TAKEN_NAMES.has(name) && invalidDimension(name, value) === undefined,
  );
}

function validMetricsOptions(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  const { namespace, dimensions, emit, ...rest } = v;
  if (Object.values(rest).some((x) => x !== undefined)) return false;
  if (namespace !== undefined && (typeof namespace !== 'string' || invalidNamespace(namespace) !== undefined)) return false;
  if (dimensions !== undefined && !validDimensions(dimensions)) return false;
  return emit === undefined || typeof emit === 'function';
}

/** Rule of the `metrics` option. */
export const metricsRule: OptionRule = {
  expected:
    'false, a Powertools Metrics instance (addMetric, publishStoredMetrics), or { namespace?, dimensions?, emit? } ' +
    `(namespace: 1 to ${emfLimits.namespaceLength} printable ASCII characters, not "AWS/..."; dimensions: ` +
    `at most ${emfLimits.dimensions - OWN_DIMENSIONS.length} non-empty ASCII strings, not named Consumer, Source or a metric; emit: a function)`,
  check: (v: unknown) => v === false || isPowertools(v) || validMetricsOptions(v),
};

/** Where each batch's metrics go, resolved once when the middleware is built. */
export type MetricsSink =
  | {
      readonly kind: 'emf';
      readonly namespace: string;
      readonly dimensions: Readonly<Record<string, string>>;
      readonly emit: (d: EmfDocument) => void;
    }
  | { readonly kind: 'powertools'; readonly metrics: PowertoolsMetricsLike }
  | false;

/**
 * The sink for a checked `metrics` option.
 */
export function metricsSink(option: MetricsOption): MetricsSink {
  if (option === false) return false;
  if (isPowertools(option)) return { kind: 'powertools', metrics: option };
  const { namespace = metricsDefaults.namespace, dimensions = {}, emit = emfStdoutWriter } = option as MetricsOptions;
  return { kind: 'emf', namespace, dimensions, emit };
}

/**
 * Why the consumer name cannot be the EMF `Consumer` dimension, or
 * `undefined`: CloudWatch drops a whole document whose dimension value is
 * not 1 to 1024 printable ASCII characters, so such a name would silently
 * lose every metric (a Powertools instance sets its own dimensions).
 */
export function consumerDimensionProblem(option: MetricsOption, consumer: string | undefined): string | undefined {
  if (option === false || isPowertools(option) || consumer === undefined) return undefined;
  const why = invalidDimension('Consumer', consumer);
  return why === undefined ? undefined : why.replace('its value', 'it');
}

function dataOf(line: BatchLogLine) {
  const replays = line.records.filter((r) => r.replay === true).length;
  return metricData({ counts: line.counts, retried: line.retried, replays, durationMs: line.durationMs });
}

function write(sink: Exclude<MetricsSink, false>, line: BatchLogLine, answeredEarly: boolean): void {
  writeData(sink, dataOf(line), { Consumer: line.consumer, Source: line.source }, answeredEarly);
}

/** `flush`: publish a Powertools instance's metrics now, for no later flush (Middy's `after`) will come. */
function writeData(
  sink: Exclude<MetricsSink, false>,
  data: readonly MetricDatum[],
  own: Readonly<Record<string, string>>,
  flush: boolean,
): void {
  if (sink.kind === 'emf') {
    const returned: unknown = sink.emit(emfDocument(data, sink.namespace, { ...sink.dimensions, ...own }, Date.now()));
    // An async emitter's rejection would otherwise be unhandled.
    if (returned instanceof Promise) returned.catch(report);
    return;
  }
  for (const d of data) sink.metrics.addMetric(d.name, d.unit, d.value);
  if (flush) sink.metrics.publishStoredMetrics();
}

/**
 * Writes `data` (with the library's own dimensions `own`) to `sink` and
 * flushes it, never throwing: for a handler outside the middlewares (the
 * outbox relay), whose counts are not a batch line.
 */
export function safeMetricData(sink: MetricsSink, data: readonly MetricDatum[], own: Readonly<Record<string, string>>): void {
  if (sink === false) return;
  try {
    writeData(sink, data, own, true);
  } catch (err) {
    report(err);
  }
}

/**
 * Writes the metrics of `line` to `sink`, never throwing (a throw or a
 * rejected promise becomes one `console.error` line). `answeredEarly`: the
 * middleware answered before the handler ran, so no later flush will come.
 */
export function safeMetrics(sink: MetricsSink, line: BatchLogLine, answeredEarly: boolean): void {
  if (sink === false) return;
  try {
    write(sink, line, answeredEarly);
  } catch (err) {
    report(err);
  }
}

function report(err: unknown): void {
  const { name, message } = err instanceof Error ? err : { name: 'Error', message: String(err) };
  try {
    console.error(`effectively-once: the metrics sink threw (${name}: ${message}); the metrics were dropped.`);
  } catch {
    // Nothing is left to report to.
  }
}
