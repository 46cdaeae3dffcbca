/**
 * The DynamoDB fault injector against DynamoDB Local: what the SDK retries,
 * what reaches the store, and the nasty case where the write landed but the
 * caller saw an error (the SDK then repeats a write that already happened).
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, TransactionRetryableError } from '../../../src/index.js';
import { injectDynamoDBFaults, invoke } from '../../../src/testing/index.js';
import { InjectedDynamoDBFault } from '../../../src/testing/dynamodb-faults.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';

async function setUp() {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table });
  return { client, doc, table, store };
}

const claimInput = (key: string) => ({ consumer: 'faults', key, leaseMs: 30_000 });

describe('injectDynamoDBFaults', () => {
  it('a throttle on the first attempt is retried by the SDK; the caller never sees it', async () => {
    const { client, store } = await setUp();
    // A fresh key's claim is a PutItem.
    const faults = injectDynamoDBFaults(client, { rules: [{ fault: 'throttle', commands: ['PutItem'], calls: [1] }] });
    const result = await store.claim(claimInput('k-throttle-once'));
    expect(result.kind).toBe('claimed');
    expect(faults.injected().throttle).toBe(1);
    expect(faults.surfaced().throttle).toBe(0);
  });

  it('throttling on every attempt surfaces after the SDK gives up, as ProvisionedThroughputExceededException', async () => {
    const { client, store } = await setUp();
    const faults = injectDynamoDBFaults(client, { seed: 5, rules: [{ fault: 'throttle', probability: 1 }] });
    const error = await store.claim(claimInput('k-throttled')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InjectedDynamoDBFault);
    expect((error as Error).name).toBe('ProvisionedThroughputExceededException');
    expect(faults.injected().throttle).toBe(await client.config.maxAttempts()); // every attempt the SDK made
    expect(faults.surfaced().throttle).toBe(1);
    faults.remove();
    expect((await store.claim(claimInput('k-throttled'))).kind).toBe('claimed');
  });

  it('network-after: the claim landed, the SDK retried it, and the store still knows the claim is its own', async () => {
    const { client, store } = await setUp();
    const faults = injectDynamoDBFaults(client, { rules: [{ fault: 'network-after', commands: ['PutItem'], calls: [1] }] });
    const claimed = await store.claim(claimInput('k-claim-after'));
    expect(faults.injected()['network-after']).toBe(1);
    expect(claimed.kind).toBe('claimed');
    if (claimed.kind !== 'claimed') return;
    // The owner token it returned is the one on the table: completion is accepted.
    const done = await store.complete({ id: claimed.id, token: claimed.token, result: 'ok', storeResult: true });
    expect(done.kind).toBe('ok');
  });

  it('network-after on the completion: the retry finds its own completion and reports ok', async () => {
    const { client, store } = await setUp();
    const claimed = await store.claim(claimInput('k-complete-after'));
    if (claimed.kind !== 'claimed') throw new Error('expected a claim');
    const faults = injectDynamoDBFaults(client, { rules: [{ fault: 'network-after', commands: ['UpdateItem'], calls: [1] }] });
    const done = await store.complete({ id: claimed.id, token: claimed.token, result: 'ok', storeResult: true });
    expect(faults.injected()['network-after']).toBe(1);
    expect(done.kind).toBe('ok');
    expect((await store.get(claimed.id))?.status).toBe('COMPLETED');
  });

  it('network-after on a transaction: the retried commit does not apply the business write twice', async () => {
    const { client, doc, store } = await setUp();
    const business = await freshTable(client, businessTable);
    const faults = injectDynamoDBFaults(client, { rules: [{ fault: 'network-after', commands: ['TransactWriteItems'], calls: [1] }] });
    const actions = [
      {
        Update: {
          TableName: business,
          Key: { pk: 'customer-1' },
          UpdateExpression: 'ADD points :p',
          ExpressionAttributeValues: { ':p': 10 },
        },
      },
    ];
    const result = await store.commit({ consumer: 'faults', key: 'k-tx-after', actions });
    expect(faults.injected()['network-after']).toBe(1);
    expect(['committed', 'duplicate']).toContain(result.kind);
    const item = await doc.send(new GetCommand({ TableName: business, Key: { pk: 'customer-1' }, ConsistentRead: true }));
    expect(item.Item?.['points']).toBe(10);
  });

  it('transaction-conflict on a commit: nothing written, a retryable error for the caller', async () => {
    const { client, doc, store } = await setUp();
    const business = await freshTable(client, businessTable);
    injectDynamoDBFaults(client, { rules: [{ fault: 'transaction-conflict', commands: ['TransactWriteItems'], calls: [1] }] });
    const actions = [{ Put: { TableName: business, Item: { pk: 'order-1' } } }];
    const error = await store.commit({ consumer: 'faults', key: 'k-conflict', actions }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionRetryableError);
    const item = await doc.send(new GetCommand({ TableName: business, Key: { pk: 'order-1' }, ConsistentRead: true }));
    expect(item.Item).toBeUndefined();
    expect((await store.commit({ consumer: 'faults', key: 'k-conflict', actions })).kind).toBe('committed');
  });

  it('latency delays each matching request by the given time', async () => {
    const { client, store } = await setUp();
    const faults = injectDynamoDBFaults(client, { rules: [{ fault: 'latency', probability: 1, latencyMs: 150 }] });
    const started = Date.now();
    await store.claim(claimInput('k-slow'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(faults.injected().latency).toBe(1);
  });

  it('a request from an invocation that already timed out is never sent (the process is gone)', async () => {
    const { client, doc } = await setUp();
    const business = await freshTable(client, businessTable);
    injectDynamoDBFaults(client, { rules: [] });
    const handler = async (): Promise<void> => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      await doc.send(new PutCommand({ TableName: business, Item: { pk: 'late-write' } }));
    };
    const result = await invoke(handler, {}, { timeoutMs: 50 });
    expect(result.kind).toBe('timed-out');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const item = await doc.send(new GetCommand({ TableName: business, Key: { pk: 'late-write' }, ConsistentRead: true }));
    expect(item.Item).toBeUndefined();
  });

  it('a seed decides the same faults for the same claims in every run (a PutItem is labelled by its key, not its whole item)', async () => {
    const { table } = await setUp();
    const keys = Array.from({ length: 24 }, (_, i) => `k-seeded-${i}`);
    // One run: a fresh client and injector, the claims one after the other; which of them got the fault.
    const run = async (): Promise<boolean[]> => {
      const { client: fresh, doc } = testDynamo();
      const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table });
      const faults = injectDynamoDBFaults(fresh, {
        seed: 3,
        rules: [{ fault: 'latency', latencyMs: 0, probability: 0.5, commands: ['PutItem'] }],
      });
      const hit: boolean[] = [];
      for (const k of keys) {
        const before = faults.injected().latency;
        expect((await store.claim(claimInput(k))).kind).toBe('claimed');
        hit.push(faults.injected().latency > before);
      }
      for (const k of keys) await doc.send(new DeleteCommand({ TableName: table, Key: { id: store.recordId('faults', k) } }));
      return hit;
    };
    const first = await run();
    expect(first).toContain(true);
    expect(first).toContain(false);
    // The claim's item carries a random owner token and the time: labelled by it, every run would draw anew.
    expect(await run()).toEqual(first);
  });

  it('rejects bad rules with a TypeError that names them', () => {
    const { client } = testDynamo();
    expect(() => injectDynamoDBFaults(client, { rules: [{ fault: 'meteor' as never, probability: 0.1 }] })).toThrow(/rules\[0\].*fault/);
    expect(() => injectDynamoDBFaults(client, { rules: [{ fault: 'throttle', probability: 1.5 }] })).toThrow(/probability/);
    expect(() => injectDynamoDBFaults(client, { rules: [{ fault: 'throttle' }] })).toThrow(/either "probability" or "calls"/);
  });
});
