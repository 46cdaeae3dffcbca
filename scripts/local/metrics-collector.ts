/**
 * Collects the EMF documents the functions emit (one per batch or event, and
 * the outbox relay's one per invocation, as CloudWatch would receive them from
 * Lambda): written to a JSON-lines file, and summed per consumer (the relay's
 * under its `Source`, `outboxRelay`) for the report's metrics table.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { outcomeMetricNames, type EmfDocument } from '../../src/observe/emf.js';
import { emfMetrics } from '../../src/observe/metrics.js';
import type { MetricsPlugin } from '../../src/observe/metrics-plugin.js';

/**
 * The counted metrics, summed per consumer (the relay's under {@link RELAY_SOURCE}); `Documents` counts EMF
 * documents, `DurationMax` is the slowest batch (ms).
 */
export type MetricTotals = Record<string, Record<string, number>>;

/** The `Source` dimension of the outbox relay's documents, which name no consumer. */
export const RELAY_SOURCE = 'outboxRelay';

/** The outbox relay's metrics (docs/outbox.md). */
export const RELAY_METRICS: readonly string[] = ['OutboxPublished', 'OutboxRefused', 'OutboxMalformed', 'OutboxMarkFailed'];

/** The metric names summed from each document (every outcome count, then the totals, then the relay's). */
export const SUMMED_METRICS: readonly string[] = [
  ...Object.values(outcomeMetricNames),
  'Records',
  'RecordsRetried',
  'Replays',
  ...RELAY_METRICS,
];

export interface MetricsCollector {
  /** The `metrics` option to inject into the handlers. */
  readonly metrics: MetricsPlugin;
  readonly path: string;
  readonly totals: MetricTotals;
  close(): Promise<void>;
}

/** Adds one document to `totals` (exported for the chaos run, which sums seeds). */
export function addDocument(totals: MetricTotals, doc: EmfDocument): void {
  const consumer = String(doc.Consumer ?? doc.Source);
  const sums = (totals[consumer] ??= {});
  sums.Documents = (sums.Documents ?? 0) + 1;
  for (const name of SUMMED_METRICS) {
    const value = doc[name];
    if (typeof value === 'number') sums[name] = (sums[name] ?? 0) + value;
  }
  if (typeof doc.Duration === 'number') sums.DurationMax = Math.max(sums.DurationMax ?? 0, doc.Duration);
}

/** Opens `path` for appending and returns a collector writing to it. */
export function createMetricsCollector(path: string): MetricsCollector {
  const stream: WriteStream = createWriteStream(path, { flags: 'a' });
  const totals: MetricTotals = {};
  let closed = false;
  const emit = (doc: EmfDocument): void => {
    // Handlers still running at shutdown may emit after close: keep the sums, drop the write.
    if (!closed) stream.write(`${JSON.stringify(doc)}\n`);
    addDocument(totals, doc);
  };
  return {
    metrics: emfMetrics({ emit }),
    path,
    totals,
    close: () => {
      closed = true;
      return new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
    },
  };
}
