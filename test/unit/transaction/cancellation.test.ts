import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancellationReasons, classifyCancellation } from '../../../src/stores/dynamodb/cancellation.js';

describe('classifyCancellation', () => {
  it('our condition failing is an idempotency verdict carrying the wire item', () => {
    const Item = marshall({ id: 'c#k', status: 'COMPLETED' });
    expect(classifyCancellation([{ Code: 'ConditionalCheckFailed', Item }, { Code: 'None' }])).toEqual({ kind: 'idempotency', item: Item });
  });

  it('our condition wins over a business condition', () => {
    const verdict = classifyCancellation([{ Code: 'ConditionalCheckFailed' }, { Code: 'ConditionalCheckFailed' }]);
    expect(verdict.kind).toBe('idempotency');
  });

  it('a business condition is reported with indexes relative to the handler actions and unmarshalled items', () => {
    const verdict = classifyCancellation([
      { Code: 'None' },
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: marshall({ pk: 'a', n: 1 }) },
    ]);
    expect(verdict).toEqual({
      kind: 'business',
      reasons: [
        { index: 0, code: 'None' },
        { index: 1, code: 'ConditionalCheckFailed', message: 'The conditional request failed', item: { pk: 'a', n: 1 } },
      ],
    });
  });

  it.each(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded'])('%s is retryable', (code) => {
    expect(classifyCancellation([{ Code: 'None' }, { Code: code }])).toEqual({ kind: 'retryable' });
  });

  it('anything else is other', () => {
    expect(classifyCancellation([{ Code: 'ValidationError' }, { Code: 'None' }])).toEqual({ kind: 'other' });
  });
});

describe('cancellationReasons', () => {
  it('reads reasons only from a TransactionCanceledException, by name', () => {
    const err = Object.assign(new Error('x'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }] });
    expect(cancellationReasons(err)).toEqual([{ Code: 'None' }]);
    expect(cancellationReasons(new Error('x'))).toBeUndefined();
    expect(cancellationReasons('TransactionCanceledException')).toBeUndefined();
  });
});
