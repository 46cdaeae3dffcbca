/**
 * The claim strategy `sqsIdempotency` runs when it is given no `strategy`:
 * batched or pipelined claims by the function's memory size, read from
 * `AWS_LAMBDA_FUNCTION_MEMORY_SIZE` once, when the middleware is built (once
 * per cold start). Batched claims (one request for a batch's claims, one for
 * its completions) spend less CPU; pipelined claims (each record its own
 * chain of requests, started at once) less wall time where CPU is plentiful.
 *
 * Pipelined claims hand the handler no records (none is claimed yet), so
 * they work only with a handler that runs the records it is handed through
 * `eachRecord`, untouched by middlewares after ours. Users who chose them
 * (`claim({ pipelined: true })`) know that; a default cannot assume it. So
 * from {@link PIPELINED_FROM_MB} up the default learns it: each container's
 * batches are claimed as a batch until one is seen taken by `eachRecord`
 * with the very records handed on, unchanged, and pipelined from then on;
 * a batch that shows otherwise (a handler that answers for the batch
 * itself, a middleware that replaced, dropped or rewrote records) keeps the
 * container on batched claims for good. The one pipelined batch that can
 * show it (a handler that stops calling `eachRecord`) comes back whole,
 * its claims released, as with `claim({ pipelined: true })`: nothing runs
 * unclaimed, nothing is acknowledged unrun.
 */
import type { BatchStrategy, StepSettings, StrategyBatch, StrategySteps } from '../types.js';
import { strategyObject } from '../types.js';
import { claimBatchStrategy, defaultClaim, defaultSteps, type ClaimSettings } from './steps.js';
import { pipelinedStrategy } from './pipelined.js';

/**
 * From this memory size (MB) up, the default pipelines claims; below it, it
 * sends them batched. Issue 31's Lambda-shaped bench (each handler's CPU
 * limited to memory / 1,769 MB of a vCPU, as Lambda does; docs/benchmarks.md)
 * measured batched claims against Powertools at 1.30x / 1.75x records/s at
 * 256 MB, 0.80x / 0.98x at 512 MB and 0.73x / 0.86x at 1,769 MB (25 % / 1 %
 * duplicates), and pipelined claims 0.93x at 256 MB and about 1.0x from
 * 512 MB: below a vCPU's half, CPU per batch is most of its time
 * and batching saves it; from 512 MB up, overlapping the round trips wins.
 */
export const PIPELINED_FROM_MB = 512;

/**
 * The memory size `AWS_LAMBDA_FUNCTION_MEMORY_SIZE` says (MB), or
 * `undefined` when it is unset or not a whole positive number (not on
 * Lambda, tests).
 */
export function memorySizeMb(value: string | undefined): number | undefined {
  return value !== undefined && /^[1-9]\d*$/.test(value) ? Number(value) : undefined;
}

/**
 * The default claim strategy of `sqsIdempotency` at this memory size:
 * batched claims below {@link PIPELINED_FROM_MB}, and also when the size is
 * unknown (not on Lambda, tests: every test built on the batched default
 * keeps its behaviour); from it up, pipelined claims once the handler is
 * seen to allow them.
 */
export function defaultClaimFor(memoryMb: number | undefined): StrategySteps {
  if (memoryMb === undefined || memoryMb < PIPELINED_FROM_MB) return defaultClaim;
  return strategyObject(memorySizedSteps, { kind: 'claim', heartbeat: false, memoryMb } as const);
}

/** How this container's handler has been seen to take its batches. */
type Claims = 'learning' | 'pipelined' | 'batched';

/**
 * The records a batch hands the handler, and each one's own properties as
 * handed: a middleware that rewrites a record in place (a body parser) would
 * be bypassed by pipelined claims, which hand it none.
 */
function handOff<TRecord>(batch: StrategyBatch<TRecord>): () => boolean {
  const handed = batch.handsOwned ? batch.admissions.filter((a) => a.kind === 'owned').map((a) => a.record) : [];
  const before = handed.map((r) => (typeof r === 'object' && r !== null ? Object.entries(r) : []));
  return () =>
    handed.every((r, i) => {
      const entries = before[i] ?? [];
      if (typeof r !== 'object' || r === null) return true;
      return Object.keys(r).length === entries.length && entries.every(([k, v]) => Object.is((r as Record<string, unknown>)[k], v));
    });
}

/** Batched claims until the handler is seen to take its batches through `eachRecord`, as handed; then pipelined. */
export function memorySizedStrategy(settings: ClaimSettings): BatchStrategy {
  const batched = claimBatchStrategy(settings);
  const pipelined = pipelinedStrategy(settings);
  let claims: Claims = 'learning';
  return {
    name: 'claim',
    async begin(start) {
      const batch = await (claims === 'pipelined' ? pipelined : batched).begin(start);
      const unchanged = claims === 'learning' ? handOff(batch) : () => true;
      const answeredByHandler = batch.answeredByHandler.bind(batch);
      // Own properties over the batch's methods: it is this invocation's own object, made just now.
      return Object.assign(batch, {
        taken(asHanded: boolean) {
          if (!asHanded || !unchanged()) claims = 'batched';
          else if (claims === 'learning') claims = 'pipelined';
        },
        answeredByHandler(answer: Parameters<typeof answeredByHandler>[0]) {
          claims = 'batched';
          return answeredByHandler(answer);
        },
      } satisfies Partial<StrategyBatch<(typeof start.records)[number]>>);
    },
  };
}

/**
 * The steps of the memory-sized default from {@link PIPELINED_FROM_MB} up: on the prototype of what `defaultClaimFor`
 * returns. Only `sqsIdempotency` runs it, so it checks nothing (as the default below it), nor claims an event.
 */
const memorySizedSteps: StrategySteps = {
  ...defaultSteps,
  batch(settings: StepSettings): BatchStrategy {
    return memorySizedStrategy({ ...settings, heartbeat: false });
  },
};
