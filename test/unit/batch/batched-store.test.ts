/**
 * The claim strategy on a store with batched calls (`claimMany`,
 * `completeMany`): a batch's claims go in one call, completions due together
 * go in one call once no handler runs, a FIFO lane still waits for its
 * record's completion, and a store that fails a batched call fails only the
 * records it answered for. The same batches on a store without the batched
 * calls give the same outcomes (the interaction matrix covers every
 * combination both ways: interaction-matrix.test.ts).
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { claim, eachRecord, jsonBody, sqsIdempotency, type IdempotencyStore } from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { ClaimInput, CompleteInput } from '../../../src/engine/store.js';
import { lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { withoutBatchedCalls } from '../../support/memory-batch.js';

const CONSUMER = 'orders';
const FIFO_ARN = 'arn:aws:sqs:us-east-1:000000000000:orders.fifo';

/** The store's calls, in order: `claimMany(3)`, `claim`, `completeMany(2)`, `complete`. */
function recorded(
  inner: MemoryIdempotencyStore,
  log: string[],
  faults: { claimMany?: Error; completeMany?: Error } = {},
): IdempotencyStore {
  return {
    ...withoutBatchedCalls(inner),
    claim: (input) => {
      log.push('claim');
      return inner.claim(input);
    },
    complete: (input) => {
      log.push('complete');
      return inner.complete(input);
    },
    claimMany: async (inputs: readonly ClaimInput[]) => {
      log.push(`claimMany(${inputs.length})`);
      if (faults.claimMany !== undefined) throw faults.claimMany;
      return inner.claimMany(inputs);
    },
    completeMany: async (inputs: readonly CompleteInput[]) => {
      log.push(`completeMany(${inputs.length})`);
      if (faults.completeMany !== undefined) throw faults.completeMany;
      return inner.completeMany(inputs);
    },
  };
}

function handlerOn(store: IdempotencyStore, options: { pipelined?: boolean; run?: (orderNo: string) => Promise<void> } = {}) {
  const lines: BatchLogLine[] = [];
  const handler = middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: CONSUMER,
        key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
        logger: (line) => lines.push(line),
        ...(options.pipelined === true ? { strategy: claim({ pipelined: true }) } : {}),
      }),
    )
    .handler(
      eachRecord(async (record) => {
        const { orderNo } = jsonBody<{ orderNo: string }>(record);
        if (orderNo.startsWith('bad')) throw new Error(`handler failed for ${orderNo}`);
        await options.run?.(orderNo);
        return { ok: orderNo };
      }),
    );
  return { handler, lines };
}

const body = (orderNo: string) => JSON.stringify({ orderNo });
const outcomes = (line: BatchLogLine | undefined) => line?.records.map((r) => `${r.messageId}:${r.outcome}`);

/** Seeds a COMPLETED key and a live claim of another owner. */
async function seeded(store: MemoryIdempotencyStore): Promise<void> {
  const done = await store.claim({ consumer: CONSUMER, key: 'done', leaseMs: 60_000 });
  if (done.kind === 'claimed') await store.complete({ id: done.id, token: done.token });
  await store.claim({ consumer: CONSUMER, key: 'held', leaseMs: 60_000 });
}

const batch = () =>
  sqsEvent([
    sqsRecord({ messageId: 'm1', body: body('a') }),
    sqsRecord({ messageId: 'm2', body: body('done') }),
    sqsRecord({ messageId: 'm3', body: body('held') }),
    sqsRecord({ messageId: 'm4', body: body('bad-1') }),
    sqsRecord({ messageId: 'm5', body: body('b') }),
    sqsRecord({ messageId: 'm6', body: body('a') }),
  ]);

describe('claim strategy on a store with batched calls', () => {
  for (const pipelined of [false, true]) {
    const calls = pipelined
      ? 'each claim and completion its own call'
      : 'one claimMany for the batch, one completeMany once no handler runs';
    it(`${pipelined ? 'pipelined' : 'batch'} claims: ${calls}; outcomes as without them`, async () => {
      const clock = new ManualClock();
      const inner = new MemoryIdempotencyStore({ clock });
      await seeded(inner);
      const log: string[] = [];
      const { handler, lines } = handlerOn(recorded(inner, log), { pipelined });
      const response = await handler(batch(), lambdaContext());

      const plainStore = new MemoryIdempotencyStore({ clock });
      await seeded(plainStore);
      const plain = handlerOn(withoutBatchedCalls(plainStore), { pipelined });
      const plainResponse = await plain.handler(batch(), lambdaContext());

      // The second copy of "a" is a follower (never claimed); the five first copies are claimed in one call,
      // or (pipelined: every record its own chain of requests) one call each.
      expect(log).toEqual(pipelined ? [...Array(5).fill('claim'), 'complete', 'complete'] : ['claimMany(5)', 'completeMany(2)']);
      expect(outcomes(lines[0])).toEqual(outcomes(plain.lines[0]));
      expect(outcomes(lines[0])).toEqual(['m1:completed', 'm2:duplicate', 'm3:in-progress', 'm4:failed', 'm5:completed', 'm6:duplicate']);
      expect(response).toEqual(plainResponse);
      expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m3', 'm4']);
      for (const key of ['a', 'b']) expect((await inner.get(inner.recordId(CONSUMER, key)))?.status).toBe('COMPLETED');
      // The failed record's claim was released (deleted), so its retry runs again.
      expect(await inner.get(inner.recordId(CONSUMER, 'bad-1'))).toBeUndefined();
    });
  }

  it('a FIFO group: each record is completed before the next of its group starts; other groups go together', async () => {
    const inner = new MemoryIdempotencyStore({ clock: new ManualClock() });
    const log: string[] = [];
    const store = recorded(inner, log);
    const { handler, lines } = handlerOn(store, {
      run: async (orderNo) => {
        log.push(`run ${orderNo}`);
        // The record before it in its group is recorded done when it starts.
        if (orderNo === 'g1-2') expect((await inner.get(inner.recordId(CONSUMER, 'g1-1')))?.status).toBe('COMPLETED');
      },
    });
    const event = sqsEvent([
      sqsRecord({ messageId: 'f1', body: body('g1-1'), queueArn: FIFO_ARN, groupId: 'g1' }),
      sqsRecord({ messageId: 'f2', body: body('g2-1'), queueArn: FIFO_ARN, groupId: 'g2' }),
      sqsRecord({ messageId: 'f3', body: body('g1-2'), queueArn: FIFO_ARN, groupId: 'g1' }),
    ]);
    await handler(event, lambdaContext());
    expect(outcomes(lines[0])).toEqual(['f1:completed', 'f2:completed', 'f3:completed']);
    expect(log).toEqual(['claimMany(3)', 'run g1-1', 'run g2-1', 'completeMany(2)', 'run g1-2', 'complete']);
  });

  it('a slow handler does not hold the others’ completions back past the bound: their effects are recorded while it runs', async () => {
    const inner = new MemoryIdempotencyStore({ clock: new ManualClock() });
    const log: string[] = [];
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    let fastDoneWhileSlowRan = false;
    const { handler, lines } = handlerOn(recorded(inner, log), {
      run: async (orderNo) => {
        if (orderNo !== 'slow') return;
        // Waits until the fast record is recorded done (far longer than the bound would allow if it were held), then ends.
        for (let i = 0; i < 100 && !fastDoneWhileSlowRan; i += 1) {
          await new Promise((r) => setTimeout(r, 5));
          fastDoneWhileSlowRan = (await inner.get(inner.recordId(CONSUMER, 'fast')))?.status === 'COMPLETED';
        }
        release();
        await slow;
      },
    });
    await handler(
      sqsEvent([sqsRecord({ messageId: 's1', body: body('slow') }), sqsRecord({ messageId: 'f1', body: body('fast') })]),
      lambdaContext(),
    );
    expect(fastDoneWhileSlowRan).toBe(true);
    expect(outcomes(lines[0])).toEqual(['s1:completed', 'f1:completed']);
    // Each went alone: the fast one at the bound, the slow one when it ended.
    expect(log).toEqual(['claimMany(2)', 'complete', 'complete']);
  });

  it('a batched call that fails as a whole fails the records it answered for, alone, and releases nothing it did not claim', async () => {
    const inner = new MemoryIdempotencyStore({ clock: new ManualClock() });
    const log: string[] = [];
    const { handler, lines } = handlerOn(recorded(inner, log, { completeMany: new Error('throttled') }));
    const response = await handler(
      sqsEvent([sqsRecord({ messageId: 'x1', body: body('x') }), sqsRecord({ messageId: 'y1', body: body('y') })]),
      lambdaContext(),
    );
    expect(outcomes(lines[0])).toEqual(['x1:failed', 'y1:failed']);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['x1', 'y1']);
    // Not recorded done: the retry finds the claims and waits for their lease, as after any failed completion.
    expect((await inner.get(inner.recordId(CONSUMER, 'x')))?.status).toBe('IN_PROGRESS');

    const failingClaims = new MemoryIdempotencyStore({ clock: new ManualClock() });
    const second = handlerOn(recorded(failingClaims, [], { claimMany: new Error('network') }));
    await second.handler(
      sqsEvent([sqsRecord({ messageId: 'z1', body: body('z') }), sqsRecord({ messageId: 'w1', body: body('w') })]),
      lambdaContext(),
    );
    expect(outcomes(second.lines[0])).toEqual(['z1:failed', 'w1:failed']);
    expect(await failingClaims.get(failingClaims.recordId(CONSUMER, 'z'))).toBeUndefined();
  });
});
