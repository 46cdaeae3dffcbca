/**
 * The claim strategy's request patterns on DynamoDB Local: the batches of
 * test/support/claim-patterns.ts through each pattern (reached by the
 * context's memory size, and `AWS_LAMBDA_MAX_CONCURRENCY` for Lambda Managed
 * Instances) give the same responses, handler calls, effects, log outcomes
 * and table state, batch by batch; `batched` sends the claims as one PartiQL
 * batch (and reads back the items they met), `per-record` a conditional
 * `PutItem` per claim. Over the five batches each key's effect runs once, and every
 * record is either completed or returned.
 */
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore } from '../../../src/index.js';
import { ManualClock } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { countRequests } from '../../support/store.js';
import { FIRST_BATCH, PATTERNS, REWRITES, runPattern, type Pattern, type Run, type Scenario } from '../../support/claim-patterns.js';

async function onDynamoDB(pattern: Pattern, scenario: Scenario): Promise<{ run: Run; commands: readonly string[] }> {
  const { client, doc } = testDynamo();
  const clock = new ManualClock(Date.now());
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client), clock });
  const requests = countRequests(doc);
  const run = await runPattern(pattern, scenario, store, clock);
  return { run, commands: [...new Set(requests.commands)] };
}

const scenarios = (['standard', 'fifo'] as const).flatMap((queue, q) =>
  REWRITES.map((rewrite, i): Scenario => ({ queue, rewrite, failAt: (i + q) % FIRST_BATCH.length })),
);

describe('each request pattern on DynamoDB Local: the same batches, the same results', () => {
  it.each(scenarios)(
    '$queue queue, a middleware after ours: $rewrite, a failure at position $failAt',
    async (scenario) => {
      const runs = [];
      for (const pattern of PATTERNS) runs.push({ pattern, ...(await onDynamoDB(pattern, scenario)) });
      const [first] = runs;
      for (const { pattern, run, commands } of runs) {
        expect(run.requests).toEqual(Array(5).fill(pattern.requests));
        // Batched claims go as PartiQL INSERTs, and the items they met (the done key) are read back; per-record ones are
        // conditional PutItems that return the item they met.
        if (pattern.requests === 'batched') {
          expect(commands).toEqual(expect.arrayContaining(['BatchExecuteStatementCommand', 'BatchGetItemCommand']));
        } else {
          expect(commands).toContain('PutItemCommand');
          expect(commands).not.toContain('BatchGetItemCommand');
        }
        expect(run.batches).toEqual(first?.run.batches);
        expect(run.effects).toEqual(first?.run.effects);
        expect(run.batches.flatMap((b) => b.unsettled)).toEqual([]);
      }
      const effects = Object.values(first?.run.effects ?? {});
      expect(effects.length).toBeGreaterThanOrEqual(11);
      expect(effects.every((n) => n === 1)).toBe(true);
    },
    60_000,
  );
});
