/**
 * How a table that exists differs from the one the template declares (keys, attribute types, indexes, stream),
 * and the TTL the template asks for, enabled or checked. A table left from an earlier run with another schema
 * fails the setup with what differs, not a test later with a `ValidationException`.
 */
import {
  type CreateTableCommandInput,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  type KeySchemaElement,
  type TableDescription,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

const keysText = (keys: readonly KeySchemaElement[] | undefined): string =>
  (keys ?? []).map((k) => `${k.AttributeName} (${k.KeyType})`).join(', ') || 'none';

interface IndexShape {
  readonly IndexName?: string | undefined;
  readonly KeySchema?: KeySchemaElement[] | undefined;
  readonly Projection?: { readonly ProjectionType?: string | undefined } | undefined;
}

function indexDifferences(kind: string, wanted: readonly IndexShape[] | undefined, found: readonly IndexShape[] | undefined): string[] {
  const differences: string[] = [];
  for (const index of wanted ?? []) {
    const there = found?.find((f) => f.IndexName === index.IndexName);
    if (there === undefined) differences.push(`${kind} ${index.IndexName}: missing`);
    else if (keysText(there.KeySchema) !== keysText(index.KeySchema)) {
      differences.push(`${kind} ${index.IndexName}: expected ${keysText(index.KeySchema)}, found ${keysText(there.KeySchema)}`);
    } else if (there.Projection?.ProjectionType !== index.Projection?.ProjectionType) {
      differences.push(
        `${kind} ${index.IndexName}: expected projection ${index.Projection?.ProjectionType}, found ${there.Projection?.ProjectionType}`,
      );
    }
  }
  return differences;
}

function streamText(spec: { StreamEnabled?: boolean | undefined; StreamViewType?: string | undefined } | undefined): string {
  return spec?.StreamEnabled === true ? String(spec.StreamViewType) : 'none';
}

/** Every way `table` differs from the `wanted` request, one line each. */
export function tableDifferences(wanted: CreateTableCommandInput, table: TableDescription): string[] {
  const differences: string[] = [];
  if (keysText(table.KeySchema) !== keysText(wanted.KeySchema)) {
    differences.push(`key schema: expected ${keysText(wanted.KeySchema)}, found ${keysText(table.KeySchema)}`);
  }
  for (const attribute of wanted.AttributeDefinitions ?? []) {
    const found = table.AttributeDefinitions?.find((a) => a.AttributeName === attribute.AttributeName)?.AttributeType;
    if (found !== undefined && found !== attribute.AttributeType) {
      differences.push(`attribute ${attribute.AttributeName}: expected type ${attribute.AttributeType}, found ${found}`);
    }
  }
  differences.push(...indexDifferences('global index', wanted.GlobalSecondaryIndexes, table.GlobalSecondaryIndexes));
  differences.push(...indexDifferences('local index', wanted.LocalSecondaryIndexes, table.LocalSecondaryIndexes));
  if (streamText(wanted.StreamSpecification) !== streamText(table.StreamSpecification)) {
    differences.push(`stream: expected ${streamText(wanted.StreamSpecification)}, found ${streamText(table.StreamSpecification)}`);
  }
  return differences;
}

/** TTL on `attribute`: enabled when off (also when another setup enabled it first), a difference when on another attribute. */
export async function ensureTtl(client: DynamoDBClient, tableName: string, attribute: string): Promise<string[]> {
  for (let attempt = 0; ; attempt++) {
    const { TimeToLiveDescription: ttl } = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    if (ttl?.TimeToLiveStatus === 'ENABLED' || ttl?.TimeToLiveStatus === 'ENABLING') {
      return ttl.AttributeName === attribute ? [] : [`TTL: expected on ${attribute}, found on ${ttl.AttributeName}`];
    }
    try {
      await client.send(
        new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: attribute, Enabled: true } }),
      );
      return [];
    } catch (err) {
      // A concurrent setup enabled it between the two calls ("already enabled", "active on a different
      // AttributeName"): read what it enabled.
      if (attempt > 0 || (err as Error).name !== 'ValidationException') throw err;
    }
  }
}

/** Polls `DescribeTable` until the table is ACTIVE (at once on DynamoDB Local; seconds on AWS), at most two minutes. */
export async function activeTable(client: DynamoDBClient, tableName: string): Promise<TableDescription> {
  for (let attempt = 0; ; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table !== undefined && (Table.TableStatus === 'ACTIVE' || attempt >= 120)) return Table;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
