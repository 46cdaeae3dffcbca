import { describe, expect, it } from 'vitest';
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

  it('fails a record whose handler uses tx, rather than dropping its writes', async () => {
    const record = sqsRecord({ body: 'x' });
    const handler = eachRecord((_r, { tx }) => {
      tx.put({ TableName: 't', Item: { pk: 'a' } });
    });
    expect(await handler(sqsEvent([record]), lambdaContext())).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
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
