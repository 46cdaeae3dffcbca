/**
 * A completion stored without its result is a completed record (its effect
 * happened and is recorded): never `invalid`, so never a permanent failure for
 * the DLQ; the batch line warns naming the record and why, and the metrics
 * count it. On the memory store, with a BigInt result (not JSON).
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eachRecord, emfMetrics, sqsIdempotency } from '../../../src/index.js';
import { claimAndDecide } from '../../../src/engine/claim-decide.js';
import { settleClaim } from '../../../src/engine/settle.js';
import { isPermanentFailure } from '../../../src/sources/sqs/permanent.js';
import type { EmfDocument } from '../../../src/observe/emf.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

describe('a result that cannot be stored (memory store)', () => {
  it('settleClaim: completed, with the result and why it was not stored; not a permanent failure', async () => {
    const store = new MemoryIdempotencyStore();
    const decision = await claimAndDecide({
      store,
      claim: { consumer: 'c', key: 'k', leaseMs: 10_000 },
      wording: { differs: 'a different payload', holder: 'invocation' },
    });
    if (decision.kind !== 'claimed') throw new Error(`expected a claim, got ${decision.kind}`);
    const owned = { messageId: 'm-1', key: 'k', id: decision.id, token: decision.token };
    const outcome = await settleClaim(store, owned, { kind: 'succeeded', result: { n: 10n } }, true);
    expect(outcome).toMatchObject({ kind: 'completed', result: { n: 10n }, resultNotStored: { name: 'UnstorableResultError' } });
    expect(isPermanentFailure(outcome, () => true)).toBe(false);
    expect((await store.get(decision.id))?.status).toBe('COMPLETED');
  });

  it('sqsIdempotency: acknowledged, one warning naming the record, ResultsNotStored counted; the line is WARN', async () => {
    const store = new MemoryIdempotencyStore();
    const lines: BatchLogLine[] = [];
    const documents: EmfDocument[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store,
          consumer: 'c',
          key: (r) => r.body,
          storeResult: true,
          logger: (l) => lines.push(l),
          metrics: emfMetrics({ emit: (d) => documents.push(d) }),
        }),
      )
      .handler(eachRecord((r) => (r.body === 'big' ? { n: 10n } : 'ok')));
    const [big, ok] = [sqsRecord({ body: 'big' }), sqsRecord({ body: 'ok' })];
    expect(await handler(sqsEvent([big, ok]), lambdaContext())).toEqual({ batchItemFailures: [] });
    const line = lines[0];
    expect(line?.level).toBe('WARN');
    expect(line?.counts).toMatchObject({ completed: 2, invalid: 0 });
    expect(line?.warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^record ${big.messageId} \\(c#big\\): completed, but its result was not stored \\(UnstorableResultError: `),
      ),
    ]);
    expect(line?.records.find((r) => r.messageId === ok.messageId)?.resultNotStored).toBeUndefined();
    expect(documents[0]?.['ResultsNotStored']).toBe(1);
  });
});
