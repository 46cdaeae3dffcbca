/**
 * The metrics of one batch or event as CloudWatch Embedded Metric Format (EMF): pure, no I/O (observe/metrics.ts
 * writes it). Every metric is in every document, zeros included, so metric math (duplicates / records) never divides
 * by a missing value.
 */
import type { RecordOutcomeKind } from '../engine/outcomes.js';

/** The CloudWatch units the metrics use. */
export type MetricUnit = 'Count' | 'Milliseconds';

/** One metric of a batch: name, unit and value. */
export interface MetricDatum {
  readonly name: string;
  readonly unit: MetricUnit;
  readonly value: number;
}

/** The metric counting each outcome kind. A mapped type over every kind: a new outcome kind does not compile until it has its metric. */
export const outcomeMetricNames: { readonly [K in RecordOutcomeKind]: string } = {
  completed: 'RecordsCompleted',
  duplicate: 'RecordsDuplicate',
  'in-progress': 'RecordsInProgress',
  failed: 'RecordsFailed',
  invalid: 'RecordsInvalid',
  'lease-lost': 'RecordsLeaseLost',
  'not-started': 'RecordsNotStarted',
  conflict: 'RecordsConflict',
  'dead-lettered': 'RecordsDeadLettered',
};

/** What one batch or event observed, for {@link metricData}. */
export interface MetricsInput {
  readonly counts: Readonly<Record<RecordOutcomeKind, number>>;
  /** Records not acknowledged (returned to the queue, or thrown for a retry). */
  readonly retried: number;
  /** Duplicates answered without a request (warm cache) or, for an event, with the stored result. */
  readonly replays: number;
  /** Completed records whose result could not be stored (too large, not JSON). Default 0. */
  readonly resultsNotStored?: number;
  /** Records that came back because the idempotency table does not exist. Default 0. */
  readonly tableNotFound?: number;
  readonly durationMs: number;
}

/**
 * The metrics of one batch or event, in a fixed order: one count per outcome
 * kind, then `Records`, `RecordsRetried`, `Replays`, `ResultsNotStored`, `IdempotencyTableNotFound` and `Duration`.
 */
export function metricData(input: MetricsInput): MetricDatum[] {
  const kinds = Object.keys(outcomeMetricNames) as RecordOutcomeKind[];
  const total = kinds.reduce((sum, kind) => sum + input.counts[kind], 0);
  return [
    ...kinds.map((kind): MetricDatum => ({ name: outcomeMetricNames[kind], unit: 'Count', value: input.counts[kind] })),
    { name: 'Records', unit: 'Count', value: total },
    { name: 'RecordsRetried', unit: 'Count', value: input.retried },
    { name: 'Replays', unit: 'Count', value: input.replays },
    { name: 'ResultsNotStored', unit: 'Count', value: input.resultsNotStored ?? 0 },
    { name: 'IdempotencyTableNotFound', unit: 'Count', value: input.tableNotFound ?? 0 },
    { name: 'Duration', unit: 'Milliseconds', value: input.durationMs },
  ];
}

/** The `_aws` metadata of an EMF document. */
export interface EmfMetadata {
  /** Epoch ms the metrics are recorded at. */
  readonly Timestamp: number;
  readonly CloudWatchMetrics: readonly [
    {
      readonly Namespace: string;
      /** One dimension set: every dimension name, each a string member of the document. */
      readonly Dimensions: readonly [readonly string[]];
      readonly Metrics: readonly { readonly Name: string; readonly Unit: MetricUnit }[];
    },
  ];
}

/** An EMF document: `_aws`, then each dimension (string) and each metric (number) as a member of its own. */
export interface EmfDocument {
  readonly _aws: EmfMetadata;
  readonly [member: string]: string | number | EmfMetadata;
}

/** The EMF limits this library keeps to (CloudWatch's EMF specification). */
export const emfLimits = { metrics: 100, dimensions: 30, namespaceLength: 255, dimensionNameLength: 250, dimensionValueLength: 1024 };

/**
 * The EMF document for `data` under `namespace`, with `dimensions` as its one
 * dimension set. The caller keeps within {@link emfLimits} (names checked
 * when the middleware is built); a dimension value is cut to the longest
 * CloudWatch takes, since a longer one would drop the whole document.
 */
export function emfDocument(
  data: readonly MetricDatum[],
  namespace: string,
  dimensions: Readonly<Record<string, string>>,
  timestamp: number,
): EmfDocument {
  const names = Object.keys(dimensions);
  const members: Record<string, string | number> = {};
  for (const name of names) members[name] = (dimensions[name] ?? '').slice(0, emfLimits.dimensionValueLength);
  for (const d of data) members[d.name] = d.value;
  const _aws: EmfMetadata = {
    Timestamp: timestamp,
    CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [names], Metrics: data.map((d) => ({ Name: d.name, Unit: d.unit })) }],
  };
  return { ...members, _aws };
}

/** ASCII printable, at least one non-space: what CloudWatch takes in names and values. */
const PRINTABLE = /^[\x20-\x7e]*[\x21-\x7e][\x20-\x7e]*$/;

/** Why `name` cannot be a CloudWatch namespace, or `undefined` when it can. */
export function invalidNamespace(name: string): string | undefined {
  if (name.length === 0 || name.length > emfLimits.namespaceLength)
    return `it has ${name.length} characters (1 to ${emfLimits.namespaceLength})`;
  if (!PRINTABLE.test(name)) return 'it has a character that is not printable ASCII';
  if (name.startsWith('AWS/')) return 'it starts with "AWS/" (reserved)';
  return undefined;
}

/** Why `name: value` cannot be a dimension, or `undefined` when it can. */
export function invalidDimension(name: string, value: string): string | undefined {
  if (name.length === 0 || name.length > emfLimits.dimensionNameLength || !PRINTABLE.test(name)) {
    return `its name is not 1 to ${emfLimits.dimensionNameLength} printable ASCII characters`;
  }
  if (name.startsWith(':')) return 'its name starts with ":"';
  if (name === '_aws') return 'its name is "_aws" (the EMF metadata)';
  if (value.length === 0 || value.length > emfLimits.dimensionValueLength || !PRINTABLE.test(value)) {
    return `its value is not 1 to ${emfLimits.dimensionValueLength} printable ASCII characters`;
  }
  return undefined;
}
