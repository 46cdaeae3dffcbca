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
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import definitions from './tables.json' with { type: 'json' };

/** A table in CloudFormation Properties shape (without `TableName`). */
export interface TableDefinition {
  readonly AttributeDefinitions: ReadonlyArray<{ AttributeName: string; AttributeType: string }>;
  readonly KeySchema: ReadonlyArray<{ AttributeName: string; KeyType: string }>;
  readonly BillingMode: string;
  readonly GlobalSecondaryIndexes?: ReadonlyArray<{
    IndexName: string;
    KeySchema: ReadonlyArray<{ AttributeName: string; KeyType: string }>;
    Projection: { ProjectionType: string; NonKeyAttributes?: readonly string[] };
  }>;
  readonly TimeToLiveSpecification?: { AttributeName: string; Enabled: boolean };
  readonly PointInTimeRecoverySpecification?: { PointInTimeRecoveryEnabled: boolean };
  readonly SSESpecification?: { SSEEnabled: boolean };
  /** CloudFormation's shape: a view type means the stream is on. */
  readonly StreamSpecification?: { StreamViewType: string };
}

/** Every table the project defines, by logical name. */
export const tableDefinitions: Readonly<Record<keyof typeof definitions, TableDefinition>> = definitions;

/** Turns a CloudFormation-shaped definition into a `CreateTable` request. */
export function toCreateTableInput(tableName: string, def: TableDefinition): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: def.AttributeDefinitions.map((a) => ({
      AttributeName: a.AttributeName,
      AttributeType: a.AttributeType as 'S' | 'N' | 'B',
    })),
    KeySchema: def.KeySchema.map((k) => ({ AttributeName: k.AttributeName, KeyType: k.KeyType as 'HASH' | 'RANGE' })),
    BillingMode: def.BillingMode as 'PAY_PER_REQUEST' | 'PROVISIONED',
    ...(def.StreamSpecification === undefined
      ? {}
      : {
          StreamSpecification: {
            StreamEnabled: true,
            StreamViewType: def.StreamSpecification.StreamViewType as 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES' | 'KEYS_ONLY',
          },
        }),
    ...(def.GlobalSecondaryIndexes === undefined
      ? {}
      : {
          GlobalSecondaryIndexes: def.GlobalSecondaryIndexes.map((g) => ({
            IndexName: g.IndexName,
            KeySchema: g.KeySchema.map((k) => ({
              AttributeName: k.AttributeName,
              KeyType: k.KeyType as 'HASH' | 'RANGE',
            })),
            Projection: {
              ProjectionType: g.Projection.ProjectionType as 'ALL' | 'KEYS_ONLY' | 'INCLUDE',
              ...(g.Projection.NonKeyAttributes === undefined ? {} : { NonKeyAttributes: [...g.Projection.NonKeyAttributes] }),
            },
          })),
        }),
  };
}

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
