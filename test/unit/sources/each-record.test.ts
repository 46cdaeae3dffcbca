import { describe, expect, it, vi } from 'vitest';
import { eachRecord } from '../../../src/index.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

describe('eachRecord without the middleware', () => {
  it('returns a partial batch response for exactly the records that threw', async () => {
    const ok = sqsRecord({ body: 'ok' });
    const bad = sqsRecord({ body: 'bad' });
    const handler = eachRecord((record) => {
      if (record.body === 'bad') throw new Error('nope');
    });
    expect(await handler(sqsEvent([ok, bad]), lambdaContext())).toEqual({ batchItemFailures: [{ itemIdentifier: bad.messageId }] });
  });

  it('eachRecord.inTransaction fails every record before its handler runs: nothing would commit its writes', async () => {
    const records = [sqsRecord({ body: 'x' }), sqsRecord({ body: 'y' })];
    let runs = 0;
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const handler = eachRecord.inTransaction((_r, { tx }) => {
      runs += 1;
      tx.put({ TableName: 't', Item: { pk: 'a' } });
    });
    try {
      const response = await handler(sqsEvent(records), lambdaContext());
      expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.map((r) => r.messageId));
      expect(runs).toBe(0);
      expect(String(errors.mock.calls[0]?.[0])).toMatch(
        /eachRecord\.inTransaction: no sqsIdempotency is in front of it.*Use sqsIdempotency\(\{ strategy: transaction\(\) \}\), or eachRecord\(fn\)/,
      );
    } finally {
      errors.mockRestore();
    }
  });

  it("hands the handler no tx: eachRecord is for effects that are not the transaction strategy's writes", async () => {
    const seen: string[][] = [];
    await eachRecord((_r, ctx) => void seen.push(Object.keys(ctx).sort()))(sqsEvent([sqsRecord({ body: 'x' })]), lambdaContext());
    expect(seen).toEqual([['attempt', 'context', 'key', 'messageId', 'signal']]);
  });

  it('keeps FIFO group order and fails the rest of a group after a failure', async () => {
    const arn = 'arn:aws:sqs:us-east-1:123456789012:q.fifo';
    const records = ['1', '2', '3'].map((body) => sqsRecord({ body, queueArn: arn, groupId: 'g' }));
    const seen: string[] = [];
    const handler = eachRecord(async (record) => {
      seen.push(record.body);
      if (record.body === '2') throw new Error('two');
    });
    const response = await handler(sqsEvent(records), lambdaContext());
    expect(seen).toEqual(['1', '2']);
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([records[1]?.messageId, records[2]?.messageId]);
  });

  it('an option given as undefined keeps its default: every record runs (none acknowledged unrun)', async () => {
    const records = ['1', '2', '3'].map((body) => sqsRecord({ body }));
    const seen: string[] = [];
    const handler = eachRecord(
      (record) => {
        seen.push(record.body);
      },
      { concurrency: undefined } as never,
    );
    await handler(sqsEvent(records), lambdaContext());
    expect(seen.sort()).toEqual(['1', '2', '3']);
  });

  it('rejects bad arguments and a non-SQS event clearly', async () => {
    expect(() => eachRecord('nope' as never)).toThrow(TypeError);
    expect(() => eachRecord(() => undefined, { concurrency: 0 })).toThrow(/option "concurrency"/);
    await expect(eachRecord(() => undefined)({} as never, lambdaContext())).rejects.toThrow(/not an SQS event/);
  });
});
