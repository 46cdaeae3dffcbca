/**
 * The sweep's figures for one variant at one memory size, from the batch
 * samples its worker measured, and the ratios to the Powertools variant it
 * is compared with in the same run. Pure functions.
 *
 * Billing: the wall time of a batch measured inside the limited process is
 * what Lambda bills (its CPU already ran at the size's share), rounded up to
 * 1 ms per invocation; $ per million deliveries is those GB-s at the size,
 * the requests, and the DynamoDB units counted from the requests sent
 * (aws-units.ts).
 */
import { billedMs, usdPerMillionDeliveries } from '../aws-model.js';
import { addTallies } from '../counter.js';
import type { EffectTally } from '../effects.js';
import type { LambdaFigures, SizeVariantResult, SweepRatios } from '../results.js';
import { type LaneFigures, laneFigures, mean, type SampleLike, sliceRatio } from '../stats.js';

export function lambdaFigures(samples: readonly SampleLike[], memoryMb: number): LambdaFigures {
  const records = samples.reduce((sum, s) => sum + s.records, 0);
  const tally = addTallies(samples.map((s) => s.tally));
  const billed = samples.reduce((sum, s) => sum + billedMs(s.ms), 0);
  const cost = { invocations: samples.length, billedMs: billed, deliveries: records, memoryMb };
  return {
    billedMsPerBatch: samples.length === 0 ? Number.NaN : billed / samples.length,
    wruPerDelivery: records === 0 ? Number.NaN : tally.wru / records,
    rruPerDelivery: records === 0 ? Number.NaN : tally.rru / records,
    usdPerMillionDeliveries: usdPerMillionDeliveries({ ...cost, writeUnits: tally.wru, readUnits: tally.rru }),
    lambdaUsdPerMillionDeliveries: usdPerMillionDeliveries({ ...cost, writeUnits: 0, readUnits: 0 }),
  };
}

/** Why an idempotent variant's run is not exactly once: effects off, records failed, or an error; undefined when it is. */
export function exactlyOnceProblem(
  idempotent: boolean,
  effects: EffectTally,
  figures: Pick<LaneFigures, 'failures'>,
  error: string | undefined,
): string | undefined {
  const problems: string[] = [];
  if (idempotent && effects.applied !== effects.unique)
    problems.push(`${effects.applied} effects applied for ${effects.unique} unique events`);
  if (idempotent && effects.points !== effects.expectedPoints)
    problems.push(`${effects.points} points instead of ${effects.expectedPoints}`);
  if (figures.failures > 0) problems.push(`${figures.failures} records reported failed`);
  if (error !== undefined) problems.push(error);
  return problems.length === 0 ? undefined : problems.join('; ');
}

const over = (a: number, b: number): number | null => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : null);

/** A variant's figures over the compared variant's. */
export function sweepRatios(
  own: { figures: LaneFigures; lambda: LambdaFigures },
  theirs: { figures: LaneFigures; lambda: LambdaFigures },
): SweepRatios {
  const rate = sliceRatio(own.figures.sliceRates, theirs.figures.sliceRates);
  return {
    recordsPerSecond: Number.isFinite(rate) ? rate : null,
    p50: over(own.figures.p50Ms, theirs.figures.p50Ms),
    p99: over(own.figures.p99Ms, theirs.figures.p99Ms),
    cpu: over(own.figures.cpuMsPerBatch, theirs.figures.cpuMsPerBatch),
    billedMs: over(own.lambda.billedMsPerBatch, theirs.lambda.billedMsPerBatch),
    usd: over(own.lambda.usdPerMillionDeliveries, theirs.lambda.usdPerMillionDeliveries),
  };
}

/** What every lane reports, whatever its samples: its variant, what it measured, the effects read back, its error. */
export interface LaneOutcome<S> {
  readonly id: string;
  readonly title: string;
  readonly setup: string;
  readonly comparedWith: string | undefined;
  readonly idempotent: boolean;
  readonly samples: readonly S[];
  readonly effects: EffectTally;
  readonly error: string | undefined;
}

/** The variant's part of a lane's outcome, as a lane of the sweep or of Managed Instances reports it. */
export function laneOutcome<S>(
  variant: {
    readonly id: string;
    readonly title: string;
    readonly setup: string;
    readonly comparedWith?: string;
    readonly idempotent: boolean;
  },
  samples: readonly S[],
  effects: EffectTally,
  error: string | undefined,
): LaneOutcome<S> {
  const { id, title, setup, comparedWith, idempotent } = variant;
  return { id, title, setup, comparedWith, idempotent, samples, effects, error };
}

/** What a lane of one size ended with, before the ratios. */
export interface SizeLaneOutcome extends LaneOutcome<SampleLike> {
  /** The group's throttled ms over the whole run at this size (warm-up included). */
  readonly throttledMs: number;
  /** Batches the group ran (warm-up included), for the throttled ms per batch. */
  readonly batchesRun: number;
}

/** Every lane's figures at one size, with the ratios to the variant each is compared with. */
export function sizeResults(lanes: readonly SizeLaneOutcome[], memoryMb: number): SizeVariantResult[] {
  const own = new Map(
    lanes.map((l) => [l.id, { figures: laneFigures(l.samples, false, false), lambda: lambdaFigures(l.samples, memoryMb) }]),
  );
  return lanes.map((l) => {
    const mine = own.get(l.id) as { figures: LaneFigures; lambda: LambdaFigures };
    const theirs = l.comparedWith === undefined ? undefined : own.get(l.comparedWith);
    return {
      id: l.id,
      title: l.title,
      setup: l.setup,
      comparedWith: l.comparedWith,
      idempotent: l.idempotent,
      figures: mine.figures,
      lambda: mine.lambda,
      throttledMsPerBatch: l.batchesRun === 0 ? Number.NaN : l.throttledMs / l.batchesRun,
      ratios: theirs === undefined ? null : sweepRatios(mine, theirs),
      effects: l.effects,
      error: l.error,
      notExactlyOnce: exactlyOnceProblem(l.idempotent, l.effects, mine.figures, l.error),
    };
  });
}

/** Mean of finite values (NaN for none). */
export function finiteMean(values: readonly number[]): number {
  return mean(values.filter((v) => Number.isFinite(v)));
}
