/**
 * Model check: the pure claim rule (`claimVerdict`, with the one lease rule
 * `leaseExpired`) against the condition DynamoDB Local really evaluates
 * (`claimable` in src/stores/dynamodb/expressions.ts is its translation). For any
 * stored record, a claim (claim strategy) and a commit (transaction
 * strategy) must end the way the verdict says, so every property proved on
 * the pure rule holds for the store too; the EventBridge wait path decides
 * with the same verdict.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimVerdict } from '../../src/engine/claim.js';
import { leaseExpired } from '../../src/engine/lease.js';
import type { IdempotencyRecord } from '../../src/engine/record.js';
import { DynamoDBIdempotencyStore, IdempotencyInProgressError } from '../../src/index.js';
import { ManualClock } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';
import { recordAt } from './arbitraries.js';
import { seeded } from './seed.js';

// An hour ahead of the wall clock: DynamoDB Local's TTL really deletes items whose
// expiresAt has passed, and must only ever touch records the rule already calls free.
const NOW = Date.now() + 3_600_000;
const { client, doc } = testDynamo();
let store: DynamoDBIdempotencyStore;
let table: string;
let seq = 0;

beforeAll(async () => {
  table = await freshTable(client);
  store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock: new ManualClock(NOW) });
});

/** Stores `record` under a key of its own and returns that key. */
async function stored(record: IdempotencyRecord): Promise<string> {
  const key = `k-${(seq += 1)}`;
  await doc.send(new PutCommand({ TableName: table, Item: { ...record, id: store.recordId('model', key) } }));
  return key;
}

describe('claimVerdict agrees with DynamoDB', () => {
  it('claim strategy: free is claimed (on the same item), duplicate is completed, in-progress is refused as in progress', async () => {
    await fc.assert(
      fc.asyncProperty(recordAt(NOW), async (record) => {
        const key = await stored(record);
        const claim = await store.claim({ consumer: 'model', key, leaseMs: 30_000 });
        const expected = { free: 'claimed', duplicate: 'completed', 'in-progress': 'in-progress' } as const;
        expect(claim.kind).toBe(expected[claimVerdict(record, NOW)]);
        if (claim.kind !== 'claimed') expect(claim.existing).toMatchObject({ status: record.status, attempts: record.attempts });
        // A record still retained was taken over in place: its attempt count goes on.
        if (claim.kind === 'claimed' && record.expiresAt * 1000 > NOW) expect(claim.record.attempts).toBe(record.attempts + 1);
      }),
      seeded(40),
    );
  });

  it('transaction strategy: free is committed, duplicate is a duplicate, in-progress throws IdempotencyInProgressError', async () => {
    await fc.assert(
      fc.asyncProperty(recordAt(NOW), async (record) => {
        const key = await stored(record);
        const verdict = claimVerdict(record, NOW);
        const commit = store.commit({ consumer: 'model', key, actions: [] });
        if (verdict === 'in-progress') {
          await expect(commit).rejects.toBeInstanceOf(IdempotencyInProgressError);
          return;
        }
        expect((await commit).kind).toBe(verdict === 'free' ? 'committed' : 'duplicate');
      }),
      seeded(40),
    );
  });

  it('records without leaseUntil: IN_PROGRESS stays in progress until its retention passes, for the rule and for DynamoDB', async () => {
    const leaseless = recordAt(NOW).map(({ leaseUntil: _dropped, ...rest }): IdempotencyRecord => ({ ...rest, status: 'IN_PROGRESS' }));
    await fc.assert(
      fc.asyncProperty(leaseless, fc.boolean(), async (record, viaCommit) => {
        expect(leaseExpired(record.leaseUntil, NOW)).toBe(false);
        const retained = record.expiresAt * 1000 > NOW;
        expect(claimVerdict(record, NOW)).toBe(retained ? 'in-progress' : 'free');
        const key = await stored(record);
        if (viaCommit) {
          const commit = store.commit({ consumer: 'model', key, actions: [] });
          if (retained) await expect(commit).rejects.toBeInstanceOf(IdempotencyInProgressError);
          else expect((await commit).kind).toBe('committed');
          return;
        }
        expect((await store.claim({ consumer: 'model', key, leaseMs: 30_000 })).kind).toBe(retained ? 'in-progress' : 'claimed');
      }),
      seeded(30),
    );
  });
});
