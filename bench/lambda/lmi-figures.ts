/**
 * Lambda Managed Instances: one variant's figures in one configuration
 * (vCPUs × invocations in flight), from the slices its environment ran, and
 * the ratios to the Powertools variant it is compared with. Pure functions.
 *
 * The bill is for the instances: what a delivery costs is the vCPU time the
 * environment holds per delivery at the rate it sustains, so the figure is
 * deliveries per second per vCPU given (records per vCPU-second), taken over
 * each slice's steady window (from the first invocation until the last fresh
 * batch was handed out: the environment full all along).
 */
import { lmiUsdPerMillionDeliveries } from '../aws-model.js';
import { addTallies, totalRequests } from '../counter.js';
import type { LmiFigures, LmiRatios, LmiVariantResult } from '../results.js';
import { addPatterns, median, percentile, sliceRatio } from '../stats.js';
import { exactlyOnceProblem, type LaneOutcome } from './figures.js';
import type { LmiSliceResult } from './lmi-protocol.js';

/** A measured slice and how long the environment's quota held it back meanwhile. */
export interface LmiSliceSample extends LmiSliceResult {
  readonly slice: number;
  readonly throttledMs: number;
}

const sum = (values: readonly number[]) => values.reduce((total, v) => total + v, 0);
const over = (a: number, b: number): number | null => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : null);

export function lmiFigures(samples: readonly LmiSliceSample[], vcpus: number): LmiFigures {
  const records = sum(samples.map((s) => s.records));
  const tally = addTallies(samples.map((s) => s.tally));
  const perDelivery = (n: number) => (records === 0 ? Number.NaN : n / records);
  const sliceRates = [...samples]
    .sort((a, b) => a.slice - b.slice)
    .map((s) => (s.windowMs > 0 ? s.windowRecords / (s.windowMs / 1000) / vcpus : Number.NaN));
  const recordsPerVcpuSecond = median(sliceRates);
  const windowCpuMs = sum(samples.map((s) => s.windowCpuMs));
  const windowMs = sum(samples.map((s) => s.windowMs));
  const batchMs = samples.flatMap((s) => s.batchMs);
  const cost = lmiUsdPerMillionDeliveries({
    deliveries: records,
    vcpuSeconds: records / recordsPerVcpuSecond,
    invocations: sum(samples.map((s) => s.invocations)),
    writeUnits: tally.wru,
    readUnits: tally.rru,
  });
  return {
    records,
    batches: batchMs.length,
    recordsPerVcpuSecond,
    sliceRates,
    recordsPerCpuSecond: windowCpuMs > 0 ? sum(samples.map((s) => s.windowRecords)) / (windowCpuMs / 1000) : Number.NaN,
    cpuUtilization: windowMs > 0 ? windowCpuMs / (windowMs * vcpus) : Number.NaN,
    p50Ms: percentile(batchMs, 50),
    p99Ms: percentile(batchMs, 99),
    redeliveriesPerDelivery: perDelivery(sum(samples.map((s) => s.redeliveries))),
    unacknowledged: sum(samples.map((s) => s.unacknowledged)),
    requestsPerDelivery: perDelivery(totalRequests(tally)),
    requestPatterns: addPatterns(samples.map((s) => s.requestPatterns)),
    wruPerDelivery: perDelivery(tally.wru),
    rruPerDelivery: perDelivery(tally.rru),
    usdPerMillionDeliveries: cost.total,
    instanceUsdPerMillionDeliveries: cost.instance,
    throttledMsPerSecond: over(sum(samples.map((s) => s.throttledMs)), sum(samples.map((s) => s.totalMs)) / 1000) ?? Number.NaN,
  };
}

export function lmiRatios(own: LmiFigures, theirs: LmiFigures): LmiRatios {
  const rate = sliceRatio(own.sliceRates, theirs.sliceRates);
  return {
    recordsPerVcpuSecond: Number.isFinite(rate) ? rate : null,
    p99: over(own.p99Ms, theirs.p99Ms),
    cpuPerRecord: over(theirs.recordsPerCpuSecond, own.recordsPerCpuSecond),
    usd: over(own.usdPerMillionDeliveries, theirs.usdPerMillionDeliveries),
  };
}

/** What an environment ended with, before the ratios; its `error`: the environment failed (not a handler's error: a record the handler failed comes again). */
export type LmiLaneOutcome = LaneOutcome<LmiSliceSample>;

/** Every environment's figures in one configuration, with the ratios to the variant each is compared with. */
export function lmiResults(lanes: readonly LmiLaneOutcome[], vcpus: number): LmiVariantResult[] {
  const figures = new Map(lanes.map((l) => [l.id, lmiFigures(l.samples, vcpus)]));
  return lanes.map((l) => {
    const own = figures.get(l.id) as LmiFigures;
    const theirs = l.comparedWith === undefined ? undefined : figures.get(l.comparedWith);
    return {
      id: l.id,
      title: l.title,
      setup: l.setup,
      comparedWith: l.comparedWith,
      idempotent: l.idempotent,
      figures: own,
      ratios: theirs === undefined ? null : lmiRatios(own, theirs),
      effects: l.effects,
      error: l.error,
      notExactlyOnce: exactlyOnceProblem(l.idempotent, l.effects, { failures: own.unacknowledged }, l.error),
    };
  });
}

/**
 * Slices of the measured batches in one configuration: as many as keep at
 * least twice `inFlight` batches in each (a steady window needs the
 * environment full for a while), at most `max`, at least one.
 */
export function lmiSlices(batches: number, inFlight: number, max: number): number {
  return Math.max(1, Math.min(max, Math.floor(batches / (2 * inFlight))));
}
