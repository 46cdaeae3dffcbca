/**
 * Table definitions: one source for local setup (here) and `serverless.yml`
 * (which reads `tables.json` with `${file(...)}`). The JSON is in
 * CloudFormation `AWS::DynamoDB::Table` Properties shape, minus `TableName`.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { type TableDefinition, toCreateTableInput } from '../src/stores/dynamodb/table.js';
import definitions from './tables.json' with { type: 'json' };

export type { TableDefinition };

/**
 * Every table the project defines, by logical name. `idempotency` is the
 * package's own definition (src/stores/dynamodb/table.ts), copied here because
 * `serverless.yml` reads this file; test/unit/infra/tables.test.ts holds the two equal.
 */
export const tableDefinitions = definitions as Readonly<Record<keyof typeof definitions, TableDefinition>>;

/**
 * Creates a table from its definition (idempotent: an existing table is kept)
 * and enables its TTL.
 *
 * @example
 * ```ts
 * await createTable(client, 'idempotency-local', tableDefinitions.idempotency);
 * ```
 */
export async function createTable(client: DynamoDBClient, tableName: string, def: TableDefinition): Promise<void> {
  try {
    await client.send(new CreateTableCommand(toCreateTableInput(tableName, def)));
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  await client.send(new DescribeTableCommand({ TableName: tableName }));
  const ttl = def.TimeToLiveSpecification;
  if (ttl?.Enabled === true) {
    try {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: tableName,
          TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true },
        }),
      );
    } catch (err) {
      // Enabling TTL twice is an error on DynamoDB; the table already has it.
      if (!(err instanceof Error && /already enabled/i.test(err.message))) throw err;
    }
  }
}
