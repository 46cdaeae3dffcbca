/**
 * Red-team acceptance: a handler that runs `eachRecord` twice over one batch
 * (a retry loop written around it, or two wrapped handlers composed by
 * mistake) must not apply any record's effect twice in one invocation: a
 * record already run (or running, or skipped) keeps its first execution.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eachRecord, jsonBody, sqsIdempotency } from '../../../src/index.js';
import type { Strategy } from '../../../src/batch/options.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { failedIds, harness, order } from '../sqs/harness.js';
import { strategyOf } from '../../support/strategy.js';

describe.each<Strategy>(['claim', 'transaction'])('eachRecord twice in one invocation, %s strategy', (strategy) => {
  it('runs each record once; the second pass changes nothing', async () => {
    const h = await harness();
    const runs = new Map<string, number>();
    const once = eachRecord(async (_record, { key }) => {
      runs.set(key, (runs.get(key) ?? 0) + 1);
      if (key === 'twice-fails') throw new Error('fails');
    });
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store: h.store,
          consumer: 'test',
          strategy: strategyOf(strategy),
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: false,
        }),
      )
      .handler(async (event: SQSEvent, context: Context) => {
        await once(event, context);
        return once(event, context);
      });
    const ok = order('twice-ok');
    const fails = order('twice-fails');
    const response = await handler(sqsEvent([ok, fails]), h.context());
    expect(Object.fromEntries(runs)).toEqual({ 'twice-ok': 1, 'twice-fails': 1 });
    expect(failedIds(response)).toEqual([fails.messageId]);
    expect((await h.store.get(h.store.recordId('test', 'twice-ok')))?.status).toBe('COMPLETED');
  });
});
