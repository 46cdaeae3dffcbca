/**
 * Test helpers: clients for the DynamoDB Local started by the global setup,
 * and fresh, uniquely named tables so test files never share state.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import { createTable, tableDefinitions, type TableDefinition } from '../../infra/tables.js';

export interface TestDynamo {
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
}

/** A low-level and a Document client pointed at the test DynamoDB Local. */
export function testDynamo(): TestDynamo {
  const client = new DynamoDBClient({
    endpoint: inject('dynamodbEndpoint'),
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { client, doc };
}

/** Creates a uniquely named table from a definition and returns its name. */
export async function freshTable(
  client: DynamoDBClient,
  def: TableDefinition = tableDefinitions.idempotency,
  prefix = 'test',
): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await createTable(client, name, def);
  return name;
}

/** A table keyed by `pk` (string) for business items in tests. */
export const businessTable: TableDefinition = {
  AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
  BillingMode: 'PAY_PER_REQUEST',
};
