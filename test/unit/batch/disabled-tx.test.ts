/**
 * Issue 34 item 2: under the claim strategy `ctx.tx` refuses writes (they
 * would never be sent), but logging, inspecting or serialising the handler's
 * context must work: a log line that throws fails the record on every retry.
 */
import { inspect } from 'node:util';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { claim, eachRecord, sqsIdempotency } from '../../../src/index.js';
import { lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

function claimHandler(fn: Parameters<typeof eachRecord>[0]) {
  const store = new MemoryIdempotencyStore();
  return middy<SQSEvent, SQSBatchResponse>()
    .use(sqsIdempotency({ store, strategy: claim(), key: (r) => r.body, logger: false }))
    .handler(eachRecord(fn));
}

describe('ctx.tx under the claim strategy', () => {
  it('JSON.stringify(ctx), a template literal of ctx.tx, util.inspect and String() of the context work: no record fails', async () => {
    const lines: string[] = [];
    const handler = claimHandler(async (_record, ctx) => {
      lines.push(JSON.stringify(ctx), `${ctx.tx}`, inspect(ctx), String(ctx.tx), JSON.stringify({ tx: ctx.tx }));
    });
    const records = [sqsRecord({ body: 'a' }), sqsRecord({ body: 'b' })];
    const response = await handler(sqsEvent(records), lambdaContext());
    expect({ response, logged: lines.length, key: JSON.parse(lines[0] ?? '{}').key }).toEqual({
      response: { batchItemFailures: [] },
      logged: 10,
      key: 'a',
    });
  });

  it('reading a property (ctx.tx.size, estimatedBytes, a method without calling it) is safe: an empty builder, no record fails', async () => {
    const read: unknown[] = [];
    const handler = claimHandler(async (_record, { tx }) => {
      read.push(tx.size, tx.estimatedBytes, typeof tx.put, 'size' in tx);
    });
    const response = await handler(sqsEvent([sqsRecord({ body: 'a' })]), lambdaContext());
    expect({ response, read }).toEqual({ response: { batchItemFailures: [] }, read: [0, 0, 'function', true] });
  });

  it('a builder method called still fails the record, naming the method and the fix', async () => {
    const errors: string[] = [];
    const handler = claimHandler(async (_record, { tx }) => {
      try {
        tx.put({ TableName: 't', Item: { pk: 'a' } });
      } catch (error) {
        errors.push(String(error));
        throw error;
      }
    });
    const record = sqsRecord({ body: 'a' });
    const response = await handler(sqsEvent([record]), lambdaContext());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(errors[0]).toMatch(/^TypeError: tx\.put\(\) is not available: .*strategy: transaction\(\)/);
  });
});
