/**
 * Figures from raw measurements: percentiles, throughput, per-record
 * request counts, and the ours/Powertools ratios.
 */
import { addTallies, totalRequests, type RequestTally } from './counter.js';

/** What one side did over the measured rounds of a scenario. */
export interface SideSamples {
  /** Wall time of each measured batch invocation, ms. */
  readonly latenciesMs: number[];
  readonly tallies: RequestTally[];
  /** CPU time of this process over the measured batches, ms. */
  cpuMs: number;
  records: number;
  /** Records reported in `batchItemFailures` (expected 0 in every scenario). */
  failures: number;
  /** Handler executions (expected: the fresh records). */
  effects: number;
  expectedEffects: number;
}

/** The printed figures of one side. */
export interface SideFigures {
  readonly records: number;
  readonly requestsPerRecord: number;
  readonly unitsPerRecord: number;
  /** Requests by command name, per record. */
  readonly byCommand: Record<string, number>;
  readonly recordsPerSecond: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** Node CPU time per batch, ms (the library and the SDK; DynamoDB Local is another process). */
  readonly cpuMsPerBatch: number;
  readonly failures: number;
  readonly effects: number;
  readonly expectedEffects: number;
}

/** ours / Powertools. Requests and latency: lower is better; throughput: higher is better. */
export interface Ratios {
  readonly requestsPerRecord: number | null;
  readonly unitsPerRecord: number | null;
  readonly recordsPerSecond: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly cpuMsPerBatch: number;
}

export function emptySamples(): SideSamples {
  return { latenciesMs: [], tallies: [], cpuMs: 0, records: 0, failures: 0, effects: 0, expectedEffects: 0 };
}

/** Nearest-rank percentile of `values` (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

export function figures(samples: SideSamples): SideFigures {
  const tally = addTallies(samples.tallies);
  const records = samples.records;
  const perRecord = (n: number) => (records === 0 ? Number.NaN : n / records);
  const totalMs = samples.latenciesMs.reduce((sum, ms) => sum + ms, 0);
  const byCommand = Object.fromEntries(Object.entries(tally.requests).map(([name, n]) => [name, perRecord(n)]));
  return {
    records,
    requestsPerRecord: perRecord(totalRequests(tally)),
    unitsPerRecord: perRecord(tally.units),
    byCommand,
    recordsPerSecond: totalMs === 0 ? Number.NaN : (records * 1000) / totalMs,
    p50Ms: percentile(samples.latenciesMs, 50),
    p95Ms: percentile(samples.latenciesMs, 95),
    cpuMsPerBatch: samples.latenciesMs.length === 0 ? Number.NaN : samples.cpuMs / samples.latenciesMs.length,
    failures: samples.failures,
    effects: samples.effects,
    expectedEffects: samples.expectedEffects,
  };
}

/** ours / Powertools; a per-record ratio is null when Powertools is at 0 (both cached). */
export function ratios(ours: SideFigures, powertools: SideFigures): Ratios {
  const per = (a: number, b: number) => (b === 0 ? null : a / b);
  return {
    requestsPerRecord: per(ours.requestsPerRecord, powertools.requestsPerRecord),
    unitsPerRecord: per(ours.unitsPerRecord, powertools.unitsPerRecord),
    recordsPerSecond: ours.recordsPerSecond / powertools.recordsPerSecond,
    p50Ms: ours.p50Ms / powertools.p50Ms,
    p95Ms: ours.p95Ms / powertools.p95Ms,
    cpuMsPerBatch: ours.cpuMsPerBatch / powertools.cpuMsPerBatch,
  };
}
