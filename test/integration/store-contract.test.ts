/**
 * The store contract (`storeContract` from `effectively-once/testing`) on
 * both stores of this project: `DynamoDBIdempotencyStore` against DynamoDB
 * Local (the own-write cases through `injectDynamoDBFaults`: the first
 * UpdateItem lands, its answer is lost, the SDK retries) and
 * `MemoryIdempotencyStore` (through its `loseNextResponse` hook).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore } from '../../src/index.js';
import { injectDynamoDBFaults, MemoryIdempotencyStore, storeContract, type StoreContractSubject } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';

const releaseModes = ['delete', 'mark-failed'] as const;

describe('DynamoDBIdempotencyStore keeps the store contract', () => {
  const { client, doc } = testDynamo();
  let tableName = '';
  beforeAll(async () => {
    tableName = await freshTable(client);
  });

  const cases = storeContract(
    ({ clock, retentionMs, release }): StoreContractSubject => ({
      store: new DynamoDBIdempotencyStore({ client: doc, tableName, clock, retentionMs, release }),
      loseFirstResponse: async (call) => {
        const faults = injectDynamoDBFaults(client, {
          rules: [{ fault: 'network-after', commands: ['PutItem', 'UpdateItem'], calls: [1] }],
        });
        try {
          const result = await call();
          expect(
            faults.injected()['network-after'],
            'the first write (a claim’s PutItem, a completion’s UpdateItem) landed and its answer was lost',
          ).toBe(1);
          expect(faults.surfaced()['network-after'], 'the SDK retried it').toBe(0);
          return result;
        } finally {
          faults.remove();
        }
      },
    }),
    { releaseModes },
  );
  it('has every rule of the contract (both release modes, own writes)', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    expect(cases.filter((c) => c.name.startsWith('own write')).length).toBe(2);
    expect(cases.filter((c) => c.name.startsWith('release (')).map((c) => c.name.slice(0, 20))).toEqual([
      'release (delete): th',
      'release (mark-failed',
    ]);
  });
  for (const c of cases) it(c.name, c.run);
});

describe('MemoryIdempotencyStore keeps the store contract', () => {
  const cases = storeContract(
    ({ clock, retentionMs, release }) => {
      const store = new MemoryIdempotencyStore({ clock, retentionMs, release });
      return {
        store,
        loseFirstResponse: async (call) => {
          const before = store.lostResponses;
          store.loseNextResponse();
          const result = await call();
          expect(store.lostResponses, 'an answer was lost').toBe(before + 1);
          return result;
        },
      };
    },
    { releaseModes },
  );
  for (const c of cases) it(c.name, c.run);
});
