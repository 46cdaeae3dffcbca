import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { INFLIGHT_INDEX_NAME } from '../../src/stores/dynamodb/stale.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';

describe('DynamoDB Local test setup', () => {
  it('creates the idempotency table with its TTL and sparse in-flight index', async () => {
    const { client } = testDynamo();
    const name = await freshTable(client);
    const table = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(table.Table?.KeySchema).toEqual([{ AttributeName: 'id', KeyType: 'HASH' }]);
    // The store queries this index by name: the definition and the code must agree.
    expect(table.Table?.GlobalSecondaryIndexes?.map((g) => g.IndexName)).toEqual([INFLIGHT_INDEX_NAME]);
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: name }));
    expect(ttl.TimeToLiveDescription?.AttributeName).toBe('expiresAt');
  });
});
