/**
 * What every middleware (and `outboxRelay`) knows of its `metrics` option:
 * an object that writes the metrics itself. Nothing here names EMF or
 * Powertools: only the user's import of `emfMetrics` or `powertoolsMetrics`
 * brings that code into a bundle.
 */
import type { OptionRule } from '../engine/options.js';
import type { MetricDatum } from './emf.js';
import type { BatchLogLine } from './log.js';

/** The value of the `metrics` option: what `emfMetrics()` or `powertoolsMetrics()` returns. */
export interface MetricsPlugin {
  readonly plugin: 'metrics';
  /** Throws a `TypeError` (starting with `owner`) when the metrics could not carry this consumer name. */
  readonly checkConsumer: (owner: string, consumer: string | undefined) => void;
  /** Writes one batch's (or event's) counts; never throws. `answeredEarly`: no later flush will come. */
  readonly writeLine: (line: BatchLogLine, answeredEarly: boolean) => void;
  /** Writes `data` with the library's own dimensions `own` and flushes; never throws (the outbox relay's counts). */
  readonly writeData: (data: readonly MetricDatum[], own: Readonly<Record<string, string>>) => void;
}

/** Rule of the `metrics` option. */
export const metricsPluginRule: OptionRule = {
  expected: 'what emfMetrics() or powertoolsMetrics() returns',
  check: (v: unknown) =>
    typeof v === 'object' &&
    v !== null &&
    (v as { plugin?: unknown }).plugin === 'metrics' &&
    typeof (v as { writeLine?: unknown }).writeLine === 'function' &&
    typeof (v as { writeData?: unknown }).writeData === 'function' &&
    typeof (v as { checkConsumer?: unknown }).checkConsumer === 'function',
};
