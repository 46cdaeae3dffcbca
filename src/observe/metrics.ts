/**
 * The metrics plug-ins: `emfMetrics({...})` writes one CloudWatch EMF document per batch (or event) line;
 * `powertoolsMetrics(m)` hands the counts to a Powertools `Metrics`. They observe outcomes already settled: a failing
 * sink never fails or delays a batch.
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
import { checkOptions, isPlainObject, type OptionRules } from '../engine/options.js';
import { safely, tableNotFound as isTableNotFound, type BatchLogLine } from './log.js';
import type { MetricsPlugin } from './metrics-plugin.js';

/**
 * What this library needs of a Powertools `Metrics` instance (from
 * `@aws-lambda-powertools/metrics`), typed by shape so the library does not
 * depend on it.
 */
export interface PowertoolsMetricsLike {
  addMetric(name: string, unit: MetricUnit, value: number): unknown;
  publishStoredMetrics(): unknown;
}

/** Options of {@link emfMetrics}. */
export interface MetricsOptions {
  /** CloudWatch namespace. Default `EffectivelyOnce`. */
  readonly namespace?: string;
  /** Extra dimensions, the same on every document (e.g. `{ Service: 'orders' }`), added to `Consumer` and `Source`. */
  readonly dimensions?: Readonly<Record<string, string>>;
  /** Receives each document. Default: one JSON line on stdout, where Lambda's log agent extracts it. */
  readonly emit?: (document: EmfDocument) => void;
}

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

const RULES: OptionRules = {
  namespace: {
    expected: `1 to ${emfLimits.namespaceLength} printable ASCII characters, not "AWS/..."`,
    check: (v: unknown) => typeof v === 'string' && invalidNamespace(v) === undefined,
  },
  dimensions: {
    expected: `an object of at most ${emfLimits.dimensions - OWN_DIMENSIONS.length} non-empty ASCII strings, not named Consumer, Source or a metric`,
    check: validDimensions,
  },
  emit: { expected: 'a function', check: (v: unknown) => typeof v === 'function' },
};

/** Runs a write to the metrics sink, never throwing (a failure is one `console.error` line). */
const safelyWrite = (write: () => unknown): void => safely(write, 'metrics sink', 'the metrics were dropped');

function dataOf(line: BatchLogLine): MetricDatum[] {
  const replays = line.records.filter((r) => r.replay === true).length;
  const resultsNotStored = line.records.filter((r) => r.resultNotStored !== undefined).length;
  const tableNotFound = line.records.filter(isTableNotFound).length;
  return metricData({ counts: line.counts, retried: line.retried, replays, resultsNotStored, tableNotFound, durationMs: line.durationMs });
}

/**
 * The EMF metrics plug-in: pass it as the `metrics` option of any
 * middleware or of `outboxRelay`. One CloudWatch EMF document per batch (or
 * event), with the dimensions `Consumer` and `Source` and yours. See
 * docs/metrics.md for the metric names.
 *
 * @throws TypeError when an option is unknown or of the wrong type, naming it;
 * the middleware throws one when its consumer name cannot be a dimension.
 * @example
 * ```ts
 * import { emfMetrics } from 'effectively-once';
 *
 * const metrics = emfMetrics({ namespace: 'Orders', dimensions: { Service: 'orders' } });
 * console.log(metrics.plugin); // metrics
 * ```
 */
export function emfMetrics(options: MetricsOptions = {}): MetricsPlugin {
  checkOptions('emfMetrics', options, RULES);
  const { namespace = metricsDefaults.namespace, dimensions = {}, emit = emfStdoutWriter } = options;
  const writeData = (data: readonly MetricDatum[], own: Readonly<Record<string, string>>): void =>
    safelyWrite(() => emit(emfDocument(data, namespace, { ...dimensions, ...own }, Date.now())));
  return {
    plugin: 'metrics',
    checkConsumer: (owner, consumer) => {
      // CloudWatch drops a whole document whose dimension value is not 1 to 1024 printable ASCII characters.
      const why = consumer === undefined ? undefined : invalidDimension('Consumer', consumer);
      if (why === undefined) return;
      throw new TypeError(
        `${owner}: option "consumer" is the Consumer dimension of the EMF metrics, but ${why.replace('its value', 'it')} (CloudWatch would drop every document); use another name, or pass no metrics.`,
      );
    },
    writeLine: (line) => writeData(dataOf(line), { Consumer: line.consumer, Source: line.source }),
    writeData,
  };
}

/**
 * The Powertools metrics plug-in: the counts of each batch (or event) are
 * added to your `Metrics` instance (from `@aws-lambda-powertools/metrics`),
 * which publishes them with its own dimensions and namespace (its
 * `logMetrics` middleware flushes; a batch answered before the handler is
 * flushed here).
 *
 * @throws TypeError when `metrics` has no `addMetric` and `publishStoredMetrics`.
 * @example
 * ```ts
 * import { powertoolsMetrics } from 'effectively-once';
 *
 * const stored: string[] = [];
 * const plugin = powertoolsMetrics({ addMetric: (name) => stored.push(name), publishStoredMetrics: () => undefined });
 * console.log(plugin.plugin); // metrics
 * ```
 */
export function powertoolsMetrics(metrics: PowertoolsMetricsLike): MetricsPlugin {
  if (!isPlainObject(metrics) || typeof metrics.addMetric !== 'function' || typeof metrics.publishStoredMetrics !== 'function') {
    throw new TypeError('powertoolsMetrics: the argument must be a Powertools Metrics instance (addMetric, publishStoredMetrics).');
  }
  const add = (data: readonly MetricDatum[], flush: boolean): void =>
    safelyWrite(() => {
      for (const d of data) metrics.addMetric(d.name, d.unit, d.value);
      if (flush) metrics.publishStoredMetrics();
    });
  return {
    plugin: 'metrics',
    checkConsumer: () => undefined,
    writeLine: (line, answeredEarly) => add(dataOf(line), answeredEarly),
    writeData: (data) => add(data, true),
  };
}
