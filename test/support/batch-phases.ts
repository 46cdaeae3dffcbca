/**
 * One scenario of the interaction matrix, delivered the way a queue would:
 * the batch; its returned records again (the retry, the handler healthy
 * now); the whole batch again (a duplicate delivery); when a key was held by
 * another live owner, the whole batch once more after that owner's lease has
 * passed; then, while records come back, the batch without its invalid ones
 * (they never heal: the redrive policy moves them to the DLQ). Every delivery
 * is compared with the model and checked against the invariants; at the end
 * nothing comes back and every valid key's effect has been applied exactly
 * once. The liveness problems of the deliveries after the retry are returned
 * for the caller to judge (none is expected).
 */
import { expect } from 'vitest';
import type { ClaimsMode } from './strategy.js';
import { invariantProblems, livenessProblems, observed, type LivenessProblem } from './batch-invariants.js';
import { runModel, type PlanRecord, type Stored } from './batch-matrix-model.js';
import { OTHER_OWNER_LEASE_MS, rig, storedOf, type Delivery, type QueueKind, type Rig, type SeedState } from './memory-batch.js';

export interface Scenario {
  readonly label: string;
  readonly queue: QueueKind;
  readonly claims: ClaimsMode;
  readonly release: 'delete' | 'mark-failed';
  /** The batch; `group` is the FIFO group (on a fair queue, the producer's group id, which orders nothing). */
  readonly plan: readonly PlanRecord[];
  /** Stored state of keys before the batch (absent: none). */
  readonly seeds: ReadonlyMap<string, SeedState>;
  /** The middleware gets the store without claimMany / completeMany. */
  readonly unbatched?: boolean;
  /** The context's `memoryLimitInMB` (default 128): what picks the claim strategy's requests. */
  readonly memoryMb?: number;
}

const invalidIn = (d: Delivery): Set<string> => new Set(d.line.records.filter((x) => x.outcome === 'invalid').map((x) => x.messageId));

// Seeds that move the clock go first, so the others are written at the batch's time.
const seedOrder: readonly SeedState[] = ['retention-expired', 'crashed-owner', 'none', 'completed', 'failed', 'live-other-owner'];

export async function seedAll(r: Rig, seeds: ReadonlyMap<string, SeedState>): Promise<void> {
  const sorted = [...seeds].sort(([, a], [, b]) => seedOrder.indexOf(a) - seedOrder.indexOf(b));
  for (const [key, state] of sorted) await r.seed(key, state);
}

/** Runs every phase of `s`. */
export async function runScenario(s: Scenario): Promise<{ readonly liveness: readonly LivenessProblem[] }> {
  const r = rig({
    claims: s.claims,
    release: s.release,
    queue: s.queue,
    unbatched: s.unbatched === true,
    ...(s.memoryMb === undefined ? {} : { memoryMb: s.memoryMb }),
  });
  await seedAll(r, s.seeds);
  const fifo = s.queue === 'fifo';
  const modelPlan = s.plan.map((p) => (fifo ? p : { ...p, group: undefined }));
  const byId = new Map(s.plan.map((p) => [p.id, r.recordOf(p)] as const));
  const prior = new Map([...s.seeds].flatMap(([key, state]) => (state === 'completed' ? [[key, 1] as const] : [])));
  const held = new Set([...s.seeds].flatMap(([key, state]) => (state === 'live-other-owner' ? [key] : [])));
  let state: Map<string, Stored> = new Map([...s.seeds].map(([key, st]) => [key, storedOf(st)] as const));
  const where = `${s.label} ${JSON.stringify(modelPlan.map((p) => [p.id, p.key ?? p.bad, p.v, p.group ?? '-', p.throws ? 'throws' : '']))}`;

  const liveness: LivenessProblem[] = [];
  const deliver = async (phase: string, plan: readonly PlanRecord[], heldElsewhere: ReadonlySet<string>, live = false) => {
    const label = `${where} [${phase}]`;
    const modelRun = runModel(plan, state);
    r.throwing.clear();
    for (const p of plan) if (p.throws) r.throwing.add(p.id);
    const records = plan.map((p) => byId.get(p.id) as NonNullable<ReturnType<typeof byId.get>>);
    const delivery = await r.deliver(records);
    const seen = observed(delivery);
    // Compared as text first: an `expect` per delivery would cost more than the delivery.
    if (JSON.stringify(seen) !== JSON.stringify(modelRun.outcomes)) expect(seen, `${label}: outcomes (model)`).toEqual(modelRun.outcomes);
    const ran = [...new Set(delivery.calls)].sort().join();
    if (ran !== [...modelRun.ran].sort().join()) expect(new Set(delivery.calls), `${label}: records run (model)`).toEqual(modelRun.ran);
    const problems = await invariantProblems({ rig: r, plan, records, delivery, prior, fifo, heldElsewhere });
    if (problems.length > 0) expect(problems, `${label}: invariants`).toEqual([]);
    if (live)
      for (const problem of livenessProblems({ rig: r, plan, records, delivery, prior, fifo, heldElsewhere }))
        liveness.push({ ...problem, message: `${label}: ${problem.message}` });
    state = new Map(modelRun.after);
    return delivery;
  };

  const first = await deliver('first delivery', modelPlan, held);
  const healthy = modelPlan.map((p) => ({ ...p, throws: false }));
  const returned = new Set(first.failed);
  const retry = healthy.filter((p) => returned.has(p.id));
  if (retry.length > 0) await deliver('retry of the returned records', retry, held);
  let last = await deliver('the whole batch again', healthy, held, true);
  if (held.size > 0) {
    r.clock.advance(OTHER_OWNER_LEASE_MS);
    // Every claim of ours is settled by now: what is still in progress is the other owner's, whose lease has passed.
    state = new Map([...state].filter(([, st]) => st?.status !== 'IN_PROGRESS'));
    last = await deliver("after the other owner's lease", healthy, new Set(), true);
  }
  // An invalid record never heals: the redrive policy moves it to the DLQ. Until then, on a FIFO queue, it holds
  // back its group at every delivery; once it is gone, what was behind it runs (within two more receives).
  let remaining = healthy;
  for (let round = 1; round <= 4 && last.failed.length > 0; round++) {
    const invalid = invalidIn(last);
    remaining = remaining.filter((p) => !invalid.has(p.id));
    if (remaining.length === 0) break;
    last = await deliver(`the batch without its dead-lettered records (${round})`, remaining, new Set());
  }
  expect(remaining.length === 0 ? [] : last.failed, `${where}: records still returned at the end`).toEqual([]);
  const keys = [...new Set(modelPlan.flatMap((p) => (p.key === undefined ? [] : [p.key])))];
  const appliedAtEnd = keys.map((key) => `${key}: ${(prior.get(key) ?? 0) + (r.effects.get(key) ?? 0)}`);
  expect(appliedAtEnd, `${where}: each key's effect applied exactly once at the end`).toEqual(keys.map((key) => `${key}: 1`));
  return { liveness };
}
