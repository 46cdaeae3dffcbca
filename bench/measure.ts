/**
 * Runs one scenario: both contenders on the same keys, round after round,
 * alternating who goes first (so warm connections, JIT and DynamoDB Local's
 * own warm-up do not favour one side), warm-up rounds discarded.
 */
import { performance } from 'node:perf_hooks';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../src/testing/index.js';
import { contender, type Contender, type Side } from './contenders.js';
import type { RequestTally } from './counter.js';
import { countedClient, type BenchTables } from './dynamo.js';
import type { Scenario } from './scenarios.js';
import { emptySamples, figures, ratios, type Ratios, type SideFigures, type SideSamples } from './stats.js';
import { KeySource, orderEvent, roundKeys, type RoundKeys } from './workload.js';

/** Size of a run. */
export interface BenchOptions {
  readonly rounds: number;
  readonly warmup: number;
  readonly batch: number;
}

/** Where the scenario runs. */
export interface BenchEnv {
  readonly endpoint: string;
  readonly tables: BenchTables;
}

/** Figures of one scenario, both sides and their ratios. */
export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly ours: SideFigures;
  readonly powertools: SideFigures;
  readonly ratios: Ratios;
  /** First unexpected error per side, if any (a bench that errors is reported, not hidden). */
  readonly errors: Partial<Record<Side, string>>;
}

interface Runner {
  readonly contender: Contender;
  readonly effects: () => number;
  readonly close: () => void;
  readonly samples: SideSamples;
  error?: string;
}

interface Measurement {
  readonly ms: number;
  /** CPU time of this process during the call (DynamoDB Local runs in another process). */
  readonly cpuMs: number;
  readonly tally: RequestTally;
  readonly failures: number;
  readonly effects: number;
}

/** A context with plenty of time: ours does not start records within 5 s of the deadline. */
function context(): Context {
  return lambdaContext({ functionName: 'bench', timeoutMs: 60_000 });
}

function runner(side: Side, scenario: Scenario, env: BenchEnv): Runner {
  const counted = countedClient(env.endpoint);
  let effects = 0;
  const built = contender({
    side,
    counted,
    tableName: side === 'ours' ? env.tables.ours : env.tables.powertools,
    cache: scenario.cache,
    ...(scenario.businessWrite ? { businessTable: env.tables.business } : {}),
    work: () => {
      effects += 1;
    },
  });
  return { contender: built, effects: () => effects, close: () => counted.client.destroy(), samples: emptySamples() };
}

/** Calls a handler; a thrown error (Powertools throws when every record failed) counts as the whole batch failed. */
async function call(r: Runner, event: SQSEvent, ctx: Context): Promise<number> {
  try {
    const response: SQSBatchResponse = await r.contender.handler(event, ctx);
    return response.batchItemFailures.length;
  } catch (err) {
    r.error ??= err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return event.Records.length;
  }
}

async function measureOnce(r: Runner, keys: RoundKeys): Promise<Measurement> {
  // Priming completes the keys the measured batch re-delivers (and warms the cache when on); not measured.
  if (keys.primed.length > 0) await call(r, orderEvent(keys.primed), context());
  r.contender.counter.take();
  const effectsBefore = r.effects();
  // Built before the clock starts: only the handler is timed.
  const event = orderEvent(keys.batch);
  const ctx = context();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const failures = await call(r, event, ctx);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  return { ms, cpuMs, tally: r.contender.counter.take(), failures, effects: r.effects() - effectsBefore };
}

function record(samples: SideSamples, m: Measurement, keys: RoundKeys): void {
  samples.latenciesMs.push(m.ms);
  samples.cpuMs += m.cpuMs;
  samples.tallies.push(m.tally);
  samples.records += keys.batch.length;
  samples.failures += m.failures;
  samples.effects += m.effects;
  samples.expectedEffects += keys.fresh;
}

/** Runs `scenario` for both sides; `progress` gets a line now and then (stderr). */
export async function runScenario(
  scenario: Scenario,
  env: BenchEnv,
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<ScenarioResult> {
  const ours = runner('ours', scenario, env);
  const powertools = runner('powertools', scenario, env);
  const source = new KeySource();
  const total = options.warmup + options.rounds;
  try {
    for (let round = 0; round < total; round += 1) {
      const keys = roundKeys(source, options.batch, scenario.duplicateShare);
      const order = round % 2 === 0 ? [ours, powertools] : [powertools, ours];
      for (const r of order) {
        const m = await measureOnce(r, keys);
        if (round >= options.warmup) record(r.samples, m, keys);
      }
      if ((round + 1) % 20 === 0 || round + 1 === total) progress(`${scenario.title}: round ${round + 1}/${total}`);
    }
  } finally {
    ours.close();
    powertools.close();
  }
  const oursFigures = figures(ours.samples);
  const powertoolsFigures = figures(powertools.samples);
  const errors: Partial<Record<Side, string>> = {
    ...(ours.error === undefined ? {} : { ours: ours.error }),
    ...(powertools.error === undefined ? {} : { powertools: powertools.error }),
  };
  return { scenario, ours: oursFigures, powertools: powertoolsFigures, ratios: ratios(oursFigures, powertoolsFigures), errors };
}
