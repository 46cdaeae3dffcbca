/**
 * The shape of a bench run's results: what `--json` prints and what the text
 * and Markdown reports are made from. One type for every kind of run: the
 * one-process bench (`kind: 'process'`) and the Lambda-shaped runs
 * (`kind: 'lambda'`: the memory sweep, Lambda Managed Instances, or both).
 * Types only.
 */
import type { awsModel } from './aws-model.js';
import type { EffectTally } from './effects.js';
import type { Machine, Versions } from './environment.js';
import type { FencingResult } from './fencing.js';
import type { LaneFigures, RequestPatterns } from './stats.js';
import type { WorkloadSummary } from './workload.js';

export type { WorkloadSummary } from './workload.js';

/** One variant's row. */
export interface VariantResult {
  readonly id: string;
  readonly title: string;
  readonly setup: string;
  readonly comparedWith: string | undefined;
  readonly idempotent: boolean;
  readonly figures: LaneFigures;
  /** Median over slices of records/s ÷ the compared variant's records/s; null for Powertools' own rows. */
  readonly ratio: number | null;
  readonly effects: EffectTally;
  /** First unexpected error, if any. */
  readonly error: string | undefined;
}

/** A target, checked against the run (shown, never a test). */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  /** null: not measured in this run (variant left out). */
  readonly met: boolean | null;
  /** For a missed target: by how much. */
  readonly shortfall: string | undefined;
}

/** `--aws`: the model's parameters as the run used them, and how the cores were shared. */
export interface AwsRunInfo {
  readonly model: typeof awsModel;
  readonly pinning: string;
}

/** What every run's report begins with: when, how long, the command, the machine, the versions and the workload. */
export interface RunHeader {
  readonly date: string;
  readonly durationS: number;
  readonly command: string;
  readonly machine: Machine;
  readonly versions: Versions;
  readonly workload: WorkloadSummary;
  /** Only with `--aws`. */
  readonly aws?: AwsRunInfo;
  /** How the bench was put ahead of the machine's other processes (priority.ts), in words; absent with `--no-priority`. */
  readonly priority?: string;
}

// ---- cold start -------------------------------------------------------------

/** Bytes a group of inputs (a package, or a folder of our sources) adds to the bundle. */
export interface BundlePart {
  readonly name: string;
  readonly bytes: number;
}

/** One step of a handler's import, timed in a fresh process after the steps before it. */
export interface ImportStep {
  /** The module imported: an external the bundle leaves to the runtime (`@aws-sdk/client-dynamodb`), or `bundle`. */
  readonly module: string;
  /** Median of the samples. */
  readonly ms: number;
  readonly samples: readonly number[];
}

/** A handler's bundle and its import at full CPU. */
export interface HandlerColdStart {
  readonly side: 'ours' | 'powertools';
  readonly entry: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Largest first. */
  readonly parts: readonly BundlePart[];
  /** Modules left to the runtime (the AWS SDK, Node built-ins). */
  readonly externals: readonly string[];
  /** Median over the samples of the whole import (every step). */
  readonly importMs: number;
  /** The bundle's own step: its import with the SDK modules loaded before (the library's own cost). */
  readonly libraryImportMs: number;
  /** The import step by step: the SDK modules the bundle leaves external, one by one, then the bundle. */
  readonly steps: readonly ImportStep[];
}

/** One side's fresh processes at one size and mode: medians of the samples. */
export interface ColdStartSideFigures {
  /** import + first batch, ms. */
  readonly initMs: number;
  /** The handler bundle's import (its top level runs: clients and middleware are built). */
  readonly importMs: number;
  /** The first batch of 10 fresh records, on a DynamoDB Local table (no latency floor: its CPU is what differs). */
  readonly firstBatchMs: number;
  /** Node's own start until the runner's first line. */
  readonly bootMs: number;
  /** CPU of the whole process to the end of the first batch. */
  readonly cpuMs: number;
  readonly initSamples: readonly number[];
}

/** Both sides in one mode at one size. */
export interface ColdStartPair {
  readonly ours: ColdStartSideFigures;
  readonly powertools: ColdStartSideFigures;
  /** ours' init over Powertools'. */
  readonly initRatio: number;
}

/**
 * One size's cold start, two ways: on demand (Lambda runs init on a full,
 * unthrottled vCPU: the import at one full core, then the process moved into
 * the size's quota before the first batch) and with provisioned concurrency
 * (no burst: everything under the quota).
 */
export interface ColdStartAtSize {
  readonly memoryMb: number;
  readonly samples: number;
  readonly onDemand: ColdStartPair;
  readonly provisioned: ColdStartPair;
}

export interface ColdStartFigures {
  readonly esbuild: string;
  /** How the bundles were built, in words. */
  readonly build: string;
  /** Fresh processes per side (per size and mode for `sizes`). */
  readonly samples: number;
  /** Where the full-CPU imports ran, in words (one core's CPU group, or no limit). */
  readonly fullCpu: string;
  /** The README's claim handler on the main entry. */
  readonly ours: HandlerColdStart;
  readonly powertools: HandlerColdStart;
  /** Per memory size (the Lambda-shaped sweep only; empty otherwise). */
  readonly sizes: readonly ColdStartAtSize[];
}

// ---- the one-process bench --------------------------------------------------

export interface ProcessReport extends RunHeader {
  readonly kind: 'process';
  readonly variants: readonly VariantResult[];
  readonly targets: readonly TargetCheck[];
  readonly coldStart: ColdStartFigures | undefined;
  readonly fencing: readonly FencingResult[];
}

// ---- the memory sweep -------------------------------------------------------

/** What Lambda would bill a variant at one size. */
export interface LambdaFigures {
  /** Mean billed ms per invocation (each batch's wall ms rounded up to 1 ms). */
  readonly billedMsPerBatch: number;
  readonly wruPerDelivery: number;
  readonly rruPerDelivery: number;
  /** Lambda GB-s at the size + $0.20 per million requests + DynamoDB on-demand units, per million deliveries. */
  readonly usdPerMillionDeliveries: number;
  /** Of which Lambda (GB-s and requests). */
  readonly lambdaUsdPerMillionDeliveries: number;
}

/** A figure over the compared Powertools variant's; null where there is none (Powertools' own rows) or it is not finite. */
export interface SweepRatios {
  /** Median of the slice-by-slice records/s ratios (as the one-process bench). */
  readonly recordsPerSecond: number | null;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly cpu: number | null;
  readonly billedMs: number | null;
  readonly usd: number | null;
}

/** One variant at one size. */
export interface SizeVariantResult extends Omit<VariantResult, 'ratio'> {
  readonly lambda: LambdaFigures;
  /** The quota's bite over the run: ms the group was held back per batch (cgroup `cpu.stat`), warm-up included. */
  readonly throttledMsPerBatch: number;
  readonly ratios: SweepRatios | null;
  /** Why this variant did not apply every event exactly once; undefined when it did (or is not meant to). */
  readonly notExactlyOnce: string | undefined;
}

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

// ---- Lambda Managed Instances ------------------------------------------------

/** One variant's execution environment at one vCPU count and concurrency. */
export interface LmiFigures {
  /** Deliveries acknowledged in the measured windows (each counted once, however often it was redelivered). */
  readonly records: number;
  readonly batches: number;
  /** Median over the slices of deliveries per second of the steady window, per vCPU the environment is given. */
  readonly recordsPerVcpuSecond: number;
  readonly sliceRates: readonly number[];
  /** Deliveries per second of CPU the environment used: what a fully loaded vCPU would do. */
  readonly recordsPerCpuSecond: number;
  /** CPU used over CPU given (vCPUs × wall) in the steady windows. */
  readonly cpuUtilization: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Deliveries handed back to the queue (batchItemFailures: a duplicate found its original in progress) and sent again, per delivery. */
  readonly redeliveriesPerDelivery: number;
  /** Deliveries still not acknowledged after the last attempt (must be 0). */
  readonly unacknowledged: number;
  readonly requestsPerDelivery: number;
  /** Invocations by the request pattern their batch log line named (`requests`): which one the library chose on LMI. */
  readonly requestPatterns: RequestPatterns;
  readonly wruPerDelivery: number;
  readonly rruPerDelivery: number;
  /** Instance vCPU-hours (EC2 on-demand + the management fee) + $0.20 per million requests + DynamoDB units, per million deliveries. */
  readonly usdPerMillionDeliveries: number;
  /** Of which the instance. */
  readonly instanceUsdPerMillionDeliveries: number;
  /** ms the environment's group was held back by its quota, per second of the measured windows. */
  readonly throttledMsPerSecond: number;
}

export interface LmiRatios {
  readonly recordsPerVcpuSecond: number | null;
  readonly p99: number | null;
  /** CPU per delivery over the compared variant's (records per CPU-second, inverted). */
  readonly cpuPerRecord: number | null;
  readonly usd: number | null;
}

export interface LmiVariantResult extends Omit<VariantResult, 'ratio' | 'figures'> {
  readonly figures: LmiFigures;
  readonly ratios: LmiRatios | null;
  readonly notExactlyOnce: string | undefined;
}

/** Every variant's environment at one vCPU count and one number of invocations in flight. */
export interface LmiConfigResult {
  readonly vcpus: number;
  readonly inFlight: number;
  /** The function's memory (vCPUs × the GiB per vCPU of the model), MB: `AWS_LAMBDA_FUNCTION_MEMORY_SIZE` and `memoryLimitInMB`. */
  readonly memoryMb: number;
  readonly quotaUs: number;
  readonly periodUs: number;
  /** Worker threads per environment (one per vCPU, as the Node.js runtime starts them). */
  readonly threads: number;
  /** Cores this machine let the environment run on (its affinity): fewer than `vcpus` caps what the quota allows. */
  readonly coresAvailable: number;
  readonly slices: number;
  readonly durationS: number;
  readonly variants: readonly LmiVariantResult[];
}

// ---- the Lambda-shaped runs -------------------------------------------------

export interface LambdaReport extends RunHeader {
  readonly kind: 'lambda';
  /** How the sizes, configurations and variants were scheduled, in words. */
  readonly schedule: string;
  /** The cgroup hierarchy used. */
  readonly cgroupRoot: string;
  readonly quotaChecks: readonly QuotaCheck[];
  /** `--memory`: one entry per size (empty without it). */
  readonly sizes: readonly SizeResult[];
  /** `--lmi`: one entry per vCPU count and number in flight (empty without it). */
  readonly lmi: readonly LmiConfigResult[];
  readonly coldStart: ColdStartFigures | undefined;
  readonly targets: readonly TargetCheck[];
  /** Every variant, size and configuration that was not exactly once (also printed loudly; the exit code is 1). */
  readonly problems: readonly string[];
}

export type BenchReport = ProcessReport | LambdaReport;
