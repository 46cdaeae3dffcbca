/**
 * Figures from the raw batch samples: percentiles, medians over the run's
 * slices, requests per delivery (in all, by command, and split into fresh
 * and duplicate deliveries), and the ratios to Powertools. Pure functions.
 */
import { billedMs, lambdaMs, usdPerMillionDeliveries } from './aws-model.js';
import { addTallies, totalRequests, type RequestTally } from './counter.js';

/**
 * How a claim batch sent its requests, as its batch log line's `requests` names it: `batched` (the claims in one
 * request, the completions together) or `per-record` (a request per claim, each record completed as its effect ends).
 */
export type RequestPattern = 'batched' | 'per-record';

/** Batches by the request pattern their log line named; empty for a variant whose lines name none (not a claim strategy). */
export type RequestPatterns = Readonly<Partial<Record<RequestPattern, number>>>;

/** The patterns counted (undefined: the line named none, or there was no line). */
export function countPatterns(patterns: ReadonlyArray<RequestPattern | undefined>): RequestPatterns {
  const counts: Partial<Record<RequestPattern, number>> = {};
  for (const p of patterns) if (p !== undefined) counts[p] = (counts[p] ?? 0) + 1;
  return counts;
}

/** Several counts added up. */
export function addPatterns(list: readonly RequestPatterns[]): RequestPatterns {
  const counts: Partial<Record<RequestPattern, number>> = {};
  for (const patterns of list)
    for (const [p, n] of Object.entries(patterns) as Array<[RequestPattern, number]>) counts[p] = (counts[p] ?? 0) + n;
  return counts;
}

/** What one batch invocation of one variant did: all the figures are made of these. */
export interface SampleLike {
  /** Wall time of the handler call, ms (the event and the context are built before the clock starts). */
  readonly ms: number;
  /** CPU time of the bench process during the call, ms (DynamoDB Local is another process). */
  readonly cpuMs: number;
  /** CPU time of the DynamoDB Local process during the call, ms; NaN when it cannot be read. */
  readonly serverCpuMs: number;
  readonly tally: RequestTally;
  readonly records: number;
  /** First deliveries of their event in this batch. */
  readonly fresh: number;
  /** Re-deliveries of events delivered in earlier batches. */
  readonly duplicates: number;
  /** Records reported in `batchItemFailures` (or all of them, when the handler threw). */
  readonly failures: number;
  /** ms from the call to the first record's effect; NaN when none ran. */
  readonly firstEffectMs: number;
  /** Which of the run's equal parts this batch belongs to (records/s is a median over them). */
  readonly slice: number;
  /** The request pattern the batch's log line named (claim strategy only). */
  readonly requests?: RequestPattern;
}

/** Cost of one fresh and one duplicate delivery; null where the run had none of that kind. */
export interface DeliverySplit {
  readonly fresh: number | null;
  readonly duplicate: number | null;
}

/** The figures of one variant. */
export interface LaneFigures {
  readonly records: number;
  readonly batches: number;
  /** Median over the slices of records / wall time of the slice's batches. */
  readonly recordsPerSecond: number;
  readonly sliceRates: readonly number[];
  readonly requestsPerDelivery: number;
  /** Requests per delivery by command name (`UpdateItemCommand` → `UpdateItem`). */
  readonly byCommand: Readonly<Record<string, number>>;
  readonly requestsSplit: DeliverySplit;
  /** Capacity units per delivery; null unless counted (`--units`). */
  readonly unitsPerDelivery: number | null;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Median ms from the batch call to its first record's effect (batches where one ran). */
  readonly firstEffectMs: number;
  /** Mean round trip of one DynamoDB request as the SDK saw it (added latency and any queueing at the server included), ms. */
  readonly requestMs: number;
  readonly cpuMsPerBatch: number;
  /** DynamoDB Local's CPU per batch, ms; NaN when not read (borrowed endpoint, not Linux). */
  readonly serverCpuMsPerBatch: number;
  readonly failures: number;
  /** Batches by the request pattern their log line named (`requests`): which one the library chose, and whether always. */
  readonly requestPatterns: RequestPatterns;
  /** `--aws` (null otherwise): write and read request units billed per delivery (aws-units.ts). */
  readonly wruPerDelivery: number | null;
  readonly rruPerDelivery: number | null;
  /** `--aws`: DynamoDB on-demand units + Lambda GB-s and requests at the model's memory size, $ per million deliveries. */
  readonly usdPerMillionDeliveries: number | null;
  /** `--aws`: p50 batch ms + Node CPU per batch slowed to a 256 MB Lambda's share of a vCPU (aws-model.ts `lambdaMs`). */
  readonly lambdaMs256: number | null;
}

/** Nearest-rank percentile of `values` (p in 0..100); NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

/** Arithmetic mean; NaN for none (or when any value is NaN). */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Median (mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? Number.NaN) + upper) / 2;
}

/** Records per second of each slice, in slice order (slices without samples are left out). */
export function sliceRates(samples: readonly SampleLike[]): number[] {
  const bySlice = new Map<number, { records: number; ms: number }>();
  for (const s of samples) {
    const acc = bySlice.get(s.slice) ?? { records: 0, ms: 0 };
    acc.records += s.records;
    acc.ms += s.ms;
    bySlice.set(s.slice, acc);
  }
  return [...bySlice.entries()].sort(([a], [b]) => a - b).map(([, { records, ms }]) => (ms === 0 ? Number.NaN : (records * 1000) / ms));
}

/** Median over slices of a / b, slice by slice (both lanes ran the same batches in each slice). */
export function sliceRatio(a: readonly number[], b: readonly number[]): number {
  return median(a.map((rate, i) => rate / (b[i] ?? Number.NaN)).filter((r) => Number.isFinite(r)));
}

/**
 * Splits a per-batch count into the cost of one fresh and one duplicate
 * delivery by least squares over the batches: count ≈ f·fresh + d·duplicates.
 * Batches mix both kinds in varying proportions, so the two are told apart
 * without attributing single requests; the fit is exact when each kind
 * costs a fixed number of requests, as with every variant here.
 */
export function splitPerDelivery(samples: readonly SampleLike[], count: (s: SampleLike) => number): DeliverySplit {
  let ff = 0;
  let fd = 0;
  let dd = 0;
  let fy = 0;
  let dy = 0;
  for (const s of samples) {
    const y = count(s);
    ff += s.fresh * s.fresh;
    fd += s.fresh * s.duplicates;
    dd += s.duplicates * s.duplicates;
    fy += s.fresh * y;
    dy += s.duplicates * y;
  }
  if (ff === 0 && dd === 0) return { fresh: null, duplicate: null };
  if (dd === 0) return { fresh: fy / ff, duplicate: null };
  if (ff === 0) return { fresh: null, duplicate: dy / dd };
  const det = ff * dd - fd * fd;
  // Every batch with the same mix: the two costs cannot be told apart.
  if (Math.abs(det) < 1e-9) return { fresh: null, duplicate: null };
  return { fresh: (fy * dd - dy * fd) / det, duplicate: (ff * dy - fd * fy) / det };
}

/** Command names as people say them: `TransactWriteItemsCommand` → `TransactWriteItems`. */
export function commandLabel(name: string): string {
  return name.replace(/Command$/, '');
}

/** `--aws`: units per delivery, $ per million deliveries and the modelled Lambda ms of a batch. */
export function awsFigures(
  samples: readonly SampleLike[],
  p50Ms: number,
  cpuMsPerBatch: number,
): Pick<LaneFigures, 'wruPerDelivery' | 'rruPerDelivery' | 'usdPerMillionDeliveries' | 'lambdaMs256'> {
  const records = samples.reduce((sum, s) => sum + s.records, 0);
  const tally = addTallies(samples.map((s) => s.tally));
  return {
    wruPerDelivery: records === 0 ? Number.NaN : tally.wru / records,
    rruPerDelivery: records === 0 ? Number.NaN : tally.rru / records,
    usdPerMillionDeliveries: usdPerMillionDeliveries({
      writeUnits: tally.wru,
      readUnits: tally.rru,
      invocations: samples.length,
      // Each batch billed for its own modelled duration.
      billedMs: samples.reduce((sum, s) => sum + billedMs(lambdaMs(s.ms, s.cpuMs)), 0),
      deliveries: records,
    }),
    lambdaMs256: lambdaMs(p50Ms, cpuMsPerBatch),
  };
}

const NO_AWS = { wruPerDelivery: null, rruPerDelivery: null, usdPerMillionDeliveries: null, lambdaMs256: null } as const;

export function laneFigures(samples: readonly SampleLike[], unitsCounted: boolean, aws = false): LaneFigures {
  const records = samples.reduce((sum, s) => sum + s.records, 0);
  const tally = addTallies(samples.map((s) => s.tally));
  const perDelivery = (n: number) => (records === 0 ? Number.NaN : n / records);
  const rates = sliceRates(samples);
  const latencies = samples.map((s) => s.ms);
  const p50Ms = percentile(latencies, 50);
  const cpuMsPerBatch = mean(samples.map((s) => s.cpuMs));
  return {
    records,
    batches: samples.length,
    recordsPerSecond: median(rates),
    sliceRates: rates,
    requestsPerDelivery: perDelivery(totalRequests(tally)),
    byCommand: Object.fromEntries(Object.entries(tally.requests).map(([name, n]) => [commandLabel(name), perDelivery(n)])),
    requestsSplit: splitPerDelivery(samples, (s) => totalRequests(s.tally)),
    unitsPerDelivery: unitsCounted ? perDelivery(tally.units) : null,
    p50Ms,
    p99Ms: percentile(latencies, 99),
    firstEffectMs: median(samples.map((s) => s.firstEffectMs).filter((ms) => Number.isFinite(ms))),
    requestMs: totalRequests(tally) === 0 ? Number.NaN : tally.requestMs / totalRequests(tally),
    cpuMsPerBatch,
    serverCpuMsPerBatch: mean(samples.map((s) => s.serverCpuMs)),
    failures: samples.reduce((sum, s) => sum + s.failures, 0),
    requestPatterns: countPatterns(samples.map((s) => s.requests)),
    ...(aws ? awsFigures(samples, p50Ms, cpuMsPerBatch) : NO_AWS),
  };
}
