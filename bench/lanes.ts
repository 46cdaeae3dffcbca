/**
 * Sets the variants up for a run (fresh tables, clients, seeded orders) and
 * turns what they did into results (figures, ratios, effects read back from
 * the tables).
 */
import { randomUUID } from 'node:crypto';
import { countedClient, createVariantTables, scanAll, seedPendingOrders, type ClientOptions, type VariantTables } from './dynamo.js';
import { tallyEffects } from './effects.js';
import { EffectClock, type Lane, LoggedRequests } from './measure.js';
import type { VariantResult } from './results.js';
import { laneFigures, sliceRatio } from './stats.js';
import type { Variant } from './variants.js';
import type { Workload } from './workload.js';

/** A lane and the tables it writes to. */
export interface PreparedLane extends Lane {
  readonly tables: VariantTables;
}

/** Creates each variant's fresh tables, seeds the orders (untimed, uncounted) and builds its handler. */
export async function prepareLanes(
  endpoint: string,
  selected: readonly Variant[],
  workloads: readonly Workload[],
  clientOptions: ClientOptions,
  progress: (line: string) => void,
): Promise<PreparedLane[]> {
  const run = randomUUID().slice(0, 8);
  const cacheEntries = workloads.reduce((sum, w) => sum + w.events.length, 0);
  const lanes: PreparedLane[] = [];
  for (const variant of selected) {
    progress(`tables for ${variant.id}`);
    const tables = await createVariantTables(endpoint, `bench-${run}-${variant.id}`, {
      idempotency: variant.idempotencyTable,
      business: variant.business,
    });
    if (variant.business === 'orders') {
      for (const w of workloads) await seedPendingOrders(endpoint, tables.business, w.events);
    }
    const aws = clientOptions.aws === undefined ? {} : { aws: { seed: variantSeed(clientOptions.aws.seed, variant.id) } };
    const counted = countedClient(endpoint, { ...clientOptions, ...aws });
    const effects = new EffectClock();
    const logged = new LoggedRequests();
    const handler = variant.build({ counted, tables, cacheEntries, onEffect: effects.mark, onBatchLine: logged.line });
    lanes.push({ variant, handler, counted, effects, logged, samples: [], tables });
  }
  return lanes;
}

/** Each variant's own latency-floor seed: the run's seed mixed with a hash (FNV-1a) of its id. */
export function variantSeed(seed: number, id: string): number {
  let hash = 0x811c9dc5;
  for (const ch of id) hash = Math.imul(hash ^ (ch.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  return (hash ^ seed) >>> 0;
}

/** Figures, ratios and effects of every lane. */
export async function laneResults(
  endpoint: string,
  lanes: readonly PreparedLane[],
  workload: Workload,
  unitsCounted: boolean,
  aws = false,
): Promise<VariantResult[]> {
  const figures = new Map(lanes.map((l) => [l.variant.id, laneFigures(l.samples, unitsCounted, aws)]));
  const results: VariantResult[] = [];
  for (const lane of lanes) {
    const v = lane.variant;
    const own = figures.get(v.id);
    if (own === undefined) continue;
    const compared = v.comparedWith === undefined ? undefined : figures.get(v.comparedWith);
    const items = await scanAll(endpoint, lane.tables.business);
    results.push({
      id: v.id,
      title: v.title,
      setup: v.setup,
      comparedWith: v.comparedWith,
      idempotent: v.idempotent,
      figures: own,
      ratio: compared === undefined ? null : sliceRatio(own.sliceRates, compared.sliceRates),
      effects: tallyEffects(v.business, items, workload),
      error: lane.error,
    });
  }
  return results;
}
