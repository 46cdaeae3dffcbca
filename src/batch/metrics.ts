/**
 * The batch middlewares' metrics (`metrics`): one EMF document per batch, or
 * the counts added to a Powertools `Metrics`. Handed to the batch
 * middleware by the main entry's sources; the claim-only entry writes none,
 * so its bundle carries none of this.
 */
import { metricsSink, safeMetrics, type MetricsOption } from '../observe/metrics.js';
import type { MetricsWriter } from './middleware.js';

/** The per-batch writer for the option (never throws), or `undefined` for none; resolved once, when the middleware is built. */
export function metricsWriter(option: MetricsOption): MetricsWriter | undefined {
  const sink = metricsSink(option);
  return sink === false ? undefined : (line, early) => safeMetrics(sink, line, early);
}
