/**
 * The claim strategy's request patterns (batched, per-record), reached as a
 * user's test reaches them (`lambdaContext({ memoryLimitInMB })`, and
 * `AWS_LAMBDA_MAX_CONCURRENCY` for Lambda Managed Instances), give the same
 * responses, handler calls, effects, log outcomes and table state, batch by
 * batch, on MemoryIdempotencyStore (test/support/claim-patterns.ts has the
 * batches; test/integration/sqs/claim-patterns.test.ts runs them on DynamoDB
 * Local). Over the five batches each key's effect runs once, and every record
 * is either completed or returned.
 */
import { describe, expect, it } from 'vitest';
import { FIRST_BATCH, PATTERNS, REWRITES, runPattern, type Run, type Scenario } from '../../support/claim-patterns.js';
import { ManualClock, MemoryIdempotencyStore } from '../../../src/testing/index.js';

/** Each key's effects after the five batches: once, but the completed key never and a dropped record never. */
function expectedEffects(scenario: Scenario): Record<string, number> {
  const keys = ['a', 'busy', 'b', 'drop', 'n2x', 'n2y', 'n3x', 'n3y', 'n4x', 'n4y', 'n5x', 'n5y'];
  return Object.fromEntries(keys.filter((k) => !(k === 'drop' && scenario.rewrite === 'filter')).map((k) => [k, 1]));
}

async function runAll(scenario: Scenario): Promise<Run[]> {
  const runs: Run[] = [];
  for (const pattern of PATTERNS) {
    const clock = new ManualClock();
    runs.push(await runPattern(pattern, scenario, new MemoryIdempotencyStore({ clock }), clock));
  }
  return runs;
}

describe.each(['standard', 'fifo'] as const)('%s queue: every pattern alike', (queue) => {
  describe.each(REWRITES)('a middleware after ours: %s', (rewrite) => {
    it.each(FIRST_BATCH.map((key, i) => [i, key] as const))('failure at position %i (%s)', async (failAt) => {
      const scenario = { queue, rewrite, failAt };
      const runs = await runAll(scenario);
      runs.forEach((run, i) => {
        expect(run.requests).toEqual(Array(5).fill(PATTERNS[i]?.requests));
        expect(run.batches).toEqual(runs[0]?.batches);
        expect(run.effects).toEqual(expectedEffects(scenario));
        expect(run.batches.flatMap((b) => b.unsettled)).toEqual([]);
      });
      const last = runs[0]?.batches.at(-1);
      // Only a record the filter drops is still coming back; a rewrite reached the handler.
      expect(last?.failed).toEqual(rewrite === 'filter' ? ['b1-5'] : []);
      const rewritten = runs[0]?.batches.flatMap((b) => b.ran).every((r) => r.endsWith(' rewritten'));
      expect(rewritten).toBe(rewrite === 'in-place' || rewrite === 'replace');
    });
  });
});
