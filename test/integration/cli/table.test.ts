import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { idempotencyTable } from '../../../src/stores/dynamodb/table.js';
import { testDynamo } from '../../support/dynamodb.js';
import { localEnv, runCli } from './support.js';

const { client } = testDynamo();
const tableName = (): string => `cli-table-${randomUUID().slice(0, 8)}`;

describe('effectively-once table create', () => {
  it('creates the table from the definition (key, index, TTL, stream), then accepts it again', async () => {
    const name = tableName();
    const first = await runCli(['table', 'create', '--table', name, '--stream']);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(`created table ${name}: key id (S), TTL on expiresAt, index inflight-by-lease, stream NEW_IMAGE\n`);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.KeySchema).toEqual(idempotencyTable.KeySchema);
    expect(Table?.GlobalSecondaryIndexes?.map((g) => g.IndexName)).toEqual(
      idempotencyTable.GlobalSecondaryIndexes?.map((g) => g.IndexName),
    );
    expect(Table?.StreamSpecification?.StreamViewType).toBe('NEW_IMAGE');
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: name }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ AttributeName: 'expiresAt', TimeToLiveStatus: 'ENABLED' });

    const again = await runCli(['table', 'create', '--table', name, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ table: name, outcome: 'existed', stream: false });
  });

  it('refuses a table with another schema, naming what differs (exit 1)', async () => {
    const name = tableName();
    await client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const run = await runCli(['table', 'create', '--table', name]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Table ${name} exists but is not an idempotency table`);
    expect(run.stderr).toContain('attribute id: expected type S, found N');
    expect(run.stderr).toContain('index inflight-by-lease: missing');
  });

  it("on a local --endpoint, needs no region or keys: the table is where the testing kit's clients look", async () => {
    const name = tableName();
    const run = await runCli(['table', 'create', '--table', name, '--endpoint', localEnv()['DYNAMODB_ENDPOINT'] ?? ''], { env: {} });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.TableName).toBe(name);
  });

  it('a name DynamoDB refuses is a usage error naming the rule (exit 2), not a missing index', async () => {
    for (const bad of ['t2', 'a b c', 'x'.repeat(256)]) {
      const run = await runCli(['table', 'create', '--table', bad]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('is not a DynamoDB table name');
      expect(run.stderr).not.toContain('no inflight-by-lease index');
    }
  });

  it('is a usage error (exit 2) without the action, or with an unknown one', async () => {
    expect((await runCli(['table', '--table', 'x'])).code).toBe(2);
    const unknown = await runCli(['table', 'drop', '--table', 'x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown action "drop"');
  });
});
