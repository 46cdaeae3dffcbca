/**
 * Red-team acceptance: a write added to `tx` after the handler returned (a
 * promise the handler did not await). The idempotency record commits without
 * that write, so the write is lost silently and a redelivery is acknowledged
 * as a duplicate: an effect acknowledged without being applied. The builder
 * must refuse it loudly instead. The call site (closing the builder once the
 * handler settled) is in src/sources/strategy.ts, so this is `it.fails` until
 * the lifecycle restructuring lands.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sqsEvent } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { harness, order } from '../sqs/harness.js';

describe('acceptance: tx used after the handler returned', () => {
  it.fails('a late tx.put throws instead of being dropped silently', async () => {
    const h = await harness();
    const { client, doc } = testDynamo();
    const business = await freshTable(client, businessTable, 'biz');
    let late: Promise<void> | undefined;
    const handler = h.handler(
      (_record, { tx }) => {
        // Not awaited: runs after the handler returned and the commit was sent.
        late = new Promise((resolve) => setTimeout(resolve, 50)).then(() => {
          tx.put({ TableName: business, Item: { pk: 'late' } });
        });
      },
      { strategy: 'transaction' },
    );
    const response = await handler(sqsEvent([order('o-1')]), h.context());
    expect(response.batchItemFailures).toEqual([]);
    const settled = await late?.then(
      () => 'accepted',
      (error: unknown) => (error instanceof TypeError ? 'refused' : 'other error'),
    );
    // The write was not committed...
    expect((await doc.send(new GetCommand({ TableName: business, Key: { pk: 'late' } }))).Item).toBeUndefined();
    // ...so adding it must not look like it worked.
    expect(settled).toBe('refused');
  });
});
