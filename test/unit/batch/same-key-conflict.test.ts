/**
 * A later copy of a key behind a first copy that hit a business conflict
 * gets the same label under every strategy: `not-started` with reason
 * `same-key-failed`, retried (the DynamoDB Local run of the same scenario is
 * in test/integration/sqs/same-key.test.ts). Here against
 * MemoryIdempotencyStore; for the transaction strategy it is given a
 * `commit` (and `commitGroup`) that refuses every business condition.
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  BusinessConflictError,
  claim,
  eachRecord,
  jsonBody,
  sqsIdempotency,
  type SqsIdempotencyOptions,
  transaction,
} from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { CommitInput, CommitResult, GroupCommitAnswer } from '../../../src/engine/store.js';
import { lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

/** A memory store whose commits all fail their business condition (nothing is written). */
function conflictingStore() {
  const store = new MemoryIdempotencyStore();
  const refuse = (input: CommitInput): CommitResult => ({
    kind: 'business-conflict',
    id: store.recordId(input.consumer, input.key),
    error: new BusinessConflictError(`order ${input.key} is CANCELLED`, [], { key: input.key }),
  });
  return Object.assign(store, {
    commit: async (input: CommitInput) => refuse(input),
    commitGroup: async (inputs: readonly CommitInput[]): Promise<GroupCommitAnswer[]> =>
      inputs.map((input) => ({ kind: 'result', result: refuse(input) })),
  });
}

const paid = (orderNo: string) => sqsRecord({ body: { orderNo, amount: 10 } });

async function run(options: Partial<SqsIdempotencyOptions>) {
  const store = conflictingStore();
  const lines: BatchLogLine[] = [];
  let runs = 0;
  const handler = middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: 'payments',
        key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
        logger: (line) => lines.push(line),
        ...options,
      }),
    )
    .handler(
      eachRecord(async (_record, { key }) => {
        runs += 1;
        // The claim strategy's own conditional write refused: the handler says so with the same error.
        if (options.strategy?.kind === 'claim') throw new BusinessConflictError(`order ${key} is CANCELLED`, [], { key });
      }),
    );
  const first = paid('o-1');
  const copy = paid('o-1');
  const response = await handler(sqsEvent([first, copy]), lambdaContext());
  const line = lines.at(-1);
  const entry = (id: string) => line?.records.find((r) => r.messageId === id);
  return {
    first: entry(first.messageId),
    copy: entry(copy.messageId),
    copyId: copy.messageId,
    firstId: first.messageId,
    response,
    runs,
    line,
  };
}

describe.each<readonly [string, Partial<SqsIdempotencyOptions>]>([
  ['claim strategy', { strategy: claim() }],
  ['transaction strategy, commit: "group"', { strategy: transaction({ commit: 'group' }) }],
  ['transaction strategy, commit: "record"', { strategy: transaction({ commit: 'record' }) }],
])('same key twice in a batch, the first copy hits a business conflict, %s (MemoryIdempotencyStore)', (_name, options) => {
  it('the later copy is not-started (same-key-failed) in the log line and retried; the handler ran once', async () => {
    const r = await run(options);
    expect(r.first?.outcome).toBe(options.strategy?.kind === 'claim' ? 'failed' : 'conflict');
    expect(r.copy).toMatchObject({ outcome: 'not-started', reason: 'same-key-failed' });
    expect(r.line?.counts['not-started']).toBe(1);
    expect(r.response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual([r.firstId, r.copyId].sort());
    expect(r.runs).toBe(1);
  });
});
