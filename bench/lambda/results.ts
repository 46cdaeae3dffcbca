/**
 * The shape of a `--memory` sweep's results: what `--json` prints and what
 * the text report, the Markdown section and the chart are made from.
 */
import type { BundlePart } from '../cold-start.js';
import type { AwsRunInfo, RunHeader, TargetCheck } from '../results.js';
import type { SizeVariantResult } from './figures.js';

/** Every variant at one memory size. */
export interface SizeResult {
  readonly memoryMb: number;
  /** The share of one vCPU (memory / 1,769, at most 1). */
  readonly cpuShare: number;
  readonly quotaUs: number;
  readonly periodUs: number;
  /** The V8 flags Lambda's Node.js runtime passes at this size, given to every worker. */
  readonly nodeFlags: readonly string[];
  /** Wall time of this size's block (workers, warm-up, measured rounds, read-back). */
  readonly durationS: number;
  readonly variants: readonly SizeVariantResult[];
}

/** The quota checked: a busy loop in a group of this size, the CPU it got over the wall time. */
export interface QuotaCheck {
  readonly memoryMb: number;
  readonly expectedShare: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  /** cpuMs / wallMs. */
  readonly measuredShare: number;
}

/** One side's fresh processes at one size: medians of the samples. */
export interface ColdStartSideFigures {
  /** import + first batch (the brief's init), ms. */
  readonly initMs: number;
  /** The handler bundle's import (its top level runs: clients and middleware are built). */
  readonly importMs: number;
  /** The first batch of 10 fresh records, on a DynamoDB Local table (no latency floor: its CPU is what differs). */
  readonly firstBatchMs: number;
  /** Node's own start until the runner's first line (under the quota too). */
  readonly bootMs: number;
  /** CPU of the whole process to the end of the first batch. */
  readonly cpuMs: number;
  readonly initSamples: readonly number[];
}

export interface ColdStartAtSize {
  readonly memoryMb: number;
  readonly samples: number;
  readonly ours: ColdStartSideFigures;
  readonly powertools: ColdStartSideFigures;
  /** ours' init over Powertools'. */
  readonly initRatio: number;
}

export interface ColdStartBundle {
  readonly entry: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly parts: readonly BundlePart[];
}

export interface SweepColdStart {
  readonly build: string;
  readonly esbuild: string;
  readonly ours: ColdStartBundle;
  readonly powertools: ColdStartBundle;
  readonly sizes: readonly ColdStartAtSize[];
}

export interface SweepReport extends RunHeader {
  readonly kind: 'memory-sweep';
  /** How the sizes and variants were scheduled, in words. */
  readonly schedule: string;
  /** The cgroup hierarchy used. */
  readonly cgroupRoot: string;
  readonly quotaChecks: readonly QuotaCheck[];
  readonly sizes: readonly SizeResult[];
  readonly coldStart: SweepColdStart | undefined;
  readonly targets: readonly TargetCheck[];
  /** Every variant and size that was not exactly once (also printed loudly; the exit code is 1). */
  readonly problems: readonly string[];
  /** Only with `--aws`. */
  readonly aws?: AwsRunInfo;
}
