/**
 * The shape of one bench run's results: what `--json` prints and what the
 * text and Markdown reports are made from.
 */
import type { awsModel } from './aws-model.js';
import type { ColdStartFigures } from './cold-start.js';
import type { EffectTally } from './effects.js';
import type { Machine, Versions } from './environment.js';
import type { FencingResult } from './fencing.js';
import type { LaneFigures } from './stats.js';

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

/** A target of the issue, checked against the run (shown, never a test). */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  /** null: not measured in this run (variant left out). */
  readonly met: boolean | null;
  /** For a missed target: by how much. */
  readonly shortfall: string | undefined;
}

export interface WorkloadSummary {
  readonly events: number;
  readonly duplicates: number;
  readonly deliveries: number;
  readonly batches: number;
  readonly batchSize: number;
  readonly seed: number;
  readonly duplicateRate: number;
  readonly warmupBatches: number;
  readonly slices: number;
  readonly latencyMs: number;
  readonly unitsCounted: boolean;
  /** `--aws`: the run used the AWS model. */
  readonly aws: boolean;
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
}

export interface BenchReport extends RunHeader {
  readonly variants: readonly VariantResult[];
  readonly targets: readonly TargetCheck[];
  readonly coldStart: ColdStartFigures | undefined;
  readonly fencing: readonly FencingResult[];
  /** Only with `--aws`. */
  readonly aws?: AwsRunInfo;
}
