/**
 * Red team of `idempotent(fn)` on the PutItem claim: a call waiting
 * (`inProgress: 'wait'`) on an owner that fails. The owner's release leaves
 * no item (`delete`: the waiter's claim is a fresh Put) or a FAILED one
 * (`mark-failed`: the waiter's Put is refused and it takes the item over);
 * either way the waiter runs fn itself, once, and its result is the stored one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, idempotent } from '../../../src/index.js';
import { Deferred } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { rawItem } from '../../support/store.js';

let table: string;
beforeAll(async () => {
  table = await freshTable(testDynamo().client);
});

describe('idempotent(fn), inProgress "wait", the owner fails', () => {
  for (const release of ['delete', 'mark-failed'] as const) {
    it(`release "${release}": the waiter claims after the failure and runs fn once, attempts ${release === 'delete' ? 1 : 2}`, async () => {
      const { doc } = testDynamo();
      const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, release });
      const consumer = `fn-wait-${release}`;
      const started = new Deferred<void>();
      const fail = new Deferred<void>();
      const runs: string[] = [];
      const charge = idempotent(
        async (orderNo: string, caller: string) => {
          runs.push(caller);
          if (caller === 'first') {
            started.resolve();
            await fail.promise;
            throw new Error('card declined');
          }
          return { charged: orderNo, by: caller };
        },
        { store, consumer, key: (orderNo) => orderNo, payload: (orderNo) => orderNo, inProgress: 'wait', wait: { initialDelayMs: 20 } },
      );
      const first = charge('o-1', 'first');
      await started.promise;
      const second = charge('o-1', 'second');
      await new Promise((resolve) => setTimeout(resolve, 100)); // the second call is polling by now
      fail.resolve();
      await expect(first).rejects.toThrow('card declined');
      expect(await second).toEqual({ charged: 'o-1', by: 'second' });
      expect(runs).toEqual(['first', 'second']);
      const raw = await rawItem(doc, table, { id: `${consumer}#o-1` });
      expect(raw).toMatchObject({ status: 'COMPLETED', attempts: release === 'delete' ? 1 : 2 });
      expect(raw).not.toHaveProperty('lastError');
      // A third call is a duplicate: fn does not run again.
      expect(await charge('o-1', 'third')).toEqual({ charged: 'o-1', by: 'second' });
      expect(runs).toEqual(['first', 'second']);
    });
  }
});
