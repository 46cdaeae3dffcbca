/**
 * Creates the idempotency table from its one definition, idempotently: a
 * table that already exists with the right key, index, stream and TTL is
 * fine; one that differs is a `TableSchemaMismatchError` that lists what
 * differs, because a consumer on the wrong table fails every record later,
 * far from the cause.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { EffectivelyOnceError } from '../../engine/error-base.js';
import { is, resolveOptions, type RulesOf } from '../../engine/options.js';
import { idempotencyTable, type TableDefinition, toCreateTableInput, withStream } from './table.js';

/**
 * An existing table does not have the idempotency table's schema.
 *
 * @example
 * ```ts
 * import { TableSchemaMismatchError } from './table-create.js';
 * const explain = (err: unknown): string[] => (err instanceof TableSchemaMismatchError ? err.differences : []);
 * ```
 */
export class TableSchemaMismatchError extends EffectivelyOnceError {
  override readonly name = 'TableSchemaMismatchError';
  /** The table that differs. */
  readonly tableName: string;
  /** One line per difference, e.g. `key schema: expected id (HASH), found pk (HASH)`. */
  readonly differences: string[];

  constructor(tableName: string, differences: string[]) {
    super(`Table ${tableName} exists but is not an idempotency table: ${differences.join('; ')}.`);
    this.tableName = tableName;
    this.differences = differences;
  }
}

/** What `createIdempotencyTable` did. */
export type CreateTableOutcome = 'created' | 'existed';

const keysText = (keys: ReadonlyArray<{ AttributeName?: string | undefined; KeyType?: string | undefined }> | undefined): string =>
  (keys ?? []).map((k) => `${k.AttributeName} (${k.KeyType})`).join(', ') || 'none';

function attributeType(table: TableDescription, name: string | undefined): string | undefined {
  return table.AttributeDefinitions?.find((a) => a.AttributeName === name)?.AttributeType;
}

/** Every way `table` differs from `def` that would break the store, the stale-claims index or the outbox. */
export function schemaDifferences(table: TableDescription, def: TableDefinition): string[] {
  const differences: string[] = [];
  if (keysText(table.KeySchema) !== keysText(def.KeySchema)) {
    differences.push(`key schema: expected ${keysText(def.KeySchema)}, found ${keysText(table.KeySchema)}`);
  }
  for (const wanted of def.AttributeDefinitions) {
    const found = attributeType(table, wanted.AttributeName);
    // An attribute only an absent index uses is reported with the index.
    if (found !== undefined && found !== wanted.AttributeType) {
      differences.push(`attribute ${wanted.AttributeName}: expected type ${wanted.AttributeType}, found ${found}`);
    }
  }
  for (const index of def.GlobalSecondaryIndexes ?? []) {
    const found = table.GlobalSecondaryIndexes?.find((g) => g.IndexName === index.IndexName);
    if (found === undefined) differences.push(`index ${index.IndexName}: missing`);
    else if (keysText(found.KeySchema) !== keysText(index.KeySchema)) {
      differences.push(`index ${index.IndexName}: expected ${keysText(index.KeySchema)}, found ${keysText(found.KeySchema)}`);
    }
  }
  const stream = def.StreamSpecification;
  if (stream !== undefined && table.StreamSpecification?.StreamEnabled !== true) differences.push('stream: expected one, found none');
  else if (stream !== undefined && !(table.StreamSpecification?.StreamViewType ?? '').includes('NEW')) {
    differences.push(`stream: expected ${stream.StreamViewType}, found ${table.StreamSpecification?.StreamViewType}`);
  }
  return differences;
}

/** How the table's TTL differs from `wanted` (none when it is on, or turning on, on that attribute), or `'off'`. */
async function ttlDifferences(client: DynamoDBClient, tableName: string, attribute: string): Promise<string[] | 'off'> {
  const current = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const description = current.TimeToLiveDescription;
  const status = description?.TimeToLiveStatus;
  if (status !== 'ENABLED' && status !== 'ENABLING') return 'off';
  return description?.AttributeName === attribute ? [] : [`TTL: expected on ${attribute}, found on ${description?.AttributeName}`];
}

/**
 * Turns the TTL on unless it is. `UpdateTimeToLive` is not idempotent: a caller that raced us to it (another
 * deploy script or test file creating the same table) makes ours fail with `TimeToLive is already enabled`
 * (`ValidationException`) or the table busy (`ResourceInUseException`); the TTL is then read again and judged.
 */
async function ensureTtl(client: DynamoDBClient, tableName: string, def: TableDefinition): Promise<string[]> {
  const wanted = def.TimeToLiveSpecification;
  if (wanted?.Enabled !== true) return [];
  const before = await ttlDifferences(client, tableName, wanted.AttributeName);
  if (before !== 'off') return before;
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: wanted.AttributeName, Enabled: true },
      }),
    );
    return [];
  } catch (err) {
    const raced = err instanceof ResourceInUseException || (err instanceof Error && err.name === 'ValidationException');
    const after = raced ? await ttlDifferences(client, tableName, wanted.AttributeName) : 'off';
    if (after === 'off') throw err;
    return after;
  }
}

/** Defaults of {@link createIdempotencyTable}'s options (`stream`: add a `NEW_IMAGE` stream, for an outbox in the same table). */
const createDefaults = Object.freeze({ stream: false });
const createRules = { stream: is.boolean } satisfies RulesOf<{ readonly stream?: boolean }>;

/**
 * Creates the idempotency table (key `id`, TTL on `expiresAt`, on-demand, the
 * `inflight-by-lease` index; a `NEW_IMAGE` stream with `stream: true`), or
 * checks the one that exists. Resolves once the table is ACTIVE. Calls at the
 * same moment on one name all resolve (one `'created'`).
 * @throws TypeError naming an unknown or wrongly typed option, before any request.
 * @throws TableSchemaMismatchError when a table of that name has another schema.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { createIdempotencyTable } from './table-create.js';
 * const outcome = await createIdempotencyTable(new DynamoDBClient({}), 'idempotency');
 * console.log(outcome); // 'created' or 'existed'
 * ```
 */
export async function createIdempotencyTable(
  client: DynamoDBClient,
  tableName: string,
  options: { readonly stream?: boolean } = {},
): Promise<CreateTableOutcome> {
  const { stream } = resolveOptions('createIdempotencyTable', options, createRules, createDefaults);
  const def = stream ? withStream(idempotencyTable) : idempotencyTable;
  let outcome: CreateTableOutcome = 'created';
  try {
    await client.send(new CreateTableCommand(toCreateTableInput(tableName, def)));
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
    outcome = 'existed';
  }
  const table = await activeTable(client, tableName);
  const differences = outcome === 'existed' ? schemaDifferences(table, def) : [];
  differences.push(...(await ensureTtl(client, tableName, def)));
  if (differences.length > 0) throw new TableSchemaMismatchError(tableName, differences);
  return outcome;
}

/** Polls `DescribeTable` until the table is ACTIVE (at once on DynamoDB Local; seconds on AWS). */
async function activeTable(client: DynamoDBClient, tableName: string): Promise<TableDescription> {
  for (let attempt = 0; ; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table !== undefined && (Table.TableStatus === 'ACTIVE' || attempt >= 120)) return Table;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
