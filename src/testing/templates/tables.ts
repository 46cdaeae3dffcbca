/**
 * The tables a template declares, as `CreateTable` requests: `AWS::DynamoDB::Table` (keys, attributes, billing
 * and throughput, global and local secondary indexes, stream, TTL), SAM's `AWS::Serverless::SimpleTable` (one
 * key, `id` by default; on demand unless it gives a throughput) and `AWS::DynamoDB::GlobalTable` (made as one
 * on-demand table: its capacities are per-replica autoscaling settings). Only these properties are evaluated, so
 * a KMS key's `!Ref` or a tag's `${ssm:...}` never stops a table from being made.
 */
import type {
  AttributeDefinition,
  CreateTableCommandInput,
  GlobalSecondaryIndex,
  KeySchemaElement,
  LocalSecondaryIndex,
  Projection,
  ProvisionedThroughput,
  StreamViewType,
} from '@aws-sdk/client-dynamodb';
import { isPlainObject } from '../../engine/options.js';
import { TemplateError, Unresolved } from './errors.js';
import { evaluate, resourceExists } from './intrinsics.js';
import type { ReadTemplate } from './scope.js';

/** One table to make: its logical id, the request, and the attribute to enable TTL on. */
export interface TableSpec {
  readonly logicalId: string;
  readonly input: CreateTableCommandInput & { readonly TableName: string };
  readonly ttlAttribute: string | undefined;
}

const TABLE_TYPES = ['AWS::DynamoDB::Table', 'AWS::Serverless::SimpleTable', 'AWS::DynamoDB::GlobalTable'] as const;

/** One table's property, evaluated when asked; an `Unresolved` becomes a `TemplateError` naming the table. */
type Read = (property: string) => Promise<unknown>;

function reader(template: ReadTemplate, logicalId: string, properties: Readonly<Record<string, unknown>>): Read {
  return async (property) => {
    try {
      return await evaluate(properties[property], template.scope);
    } catch (err) {
      throw err instanceof Unresolved ? unresolved(template, logicalId, property, err) : err;
    }
  };
}

/** The `TemplateError` for a table's property (`TableName`) or `Condition` that cannot be resolved. */
function unresolved(template: ReadTemplate, logicalId: string, property: string, err: Unresolved): TemplateError {
  const what = property === 'Condition' ? 'its Condition' : `Properties.${property}`;
  const also = property === 'TableName' ? ` (or name the table: tableNames: { ${logicalId}: '...' })` : '';
  return new TemplateError(`${template.label}: table ${logicalId}: cannot resolve ${what}: ${err.message}${also}.`, {
    template: template.label,
    logicalId,
    expression: err.expression,
    cause: err,
  });
}

const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isPlainObject) : []);
const numberOf = (value: unknown): number | undefined => (value === undefined ? undefined : Number(value));
const isTrue = (value: unknown): boolean => value === true || value === 'true';

function keySchema(value: unknown): KeySchemaElement[] {
  return records(value).map((k) => ({ AttributeName: String(k['AttributeName']), KeyType: String(k['KeyType']) as 'HASH' | 'RANGE' }));
}

function throughput(value: unknown): ProvisionedThroughput | undefined {
  if (!isPlainObject(value)) return undefined;
  return { ReadCapacityUnits: numberOf(value['ReadCapacityUnits']), WriteCapacityUnits: numberOf(value['WriteCapacityUnits']) };
}

function projection(value: unknown): Projection {
  const p = isPlainObject(value) ? value : {};
  const nonKey = Array.isArray(p['NonKeyAttributes']) ? p['NonKeyAttributes'].map(String) : undefined;
  return {
    ProjectionType: (p['ProjectionType'] ?? 'KEYS_ONLY') as Projection['ProjectionType'],
    ...(nonKey === undefined ? {} : { NonKeyAttributes: nonKey }),
  };
}

function indexes(value: unknown, provisioned: boolean): GlobalSecondaryIndex[] {
  return records(value).map((g) => {
    const units = provisioned ? throughput(g['ProvisionedThroughput']) : undefined;
    return {
      IndexName: String(g['IndexName']),
      KeySchema: keySchema(g['KeySchema']),
      Projection: projection(g['Projection']),
      ...(units === undefined ? {} : { ProvisionedThroughput: units }),
    };
  });
}

/** An `AWS::DynamoDB::Table` (or `GlobalTable`, on demand) as a `CreateTable` request, without its name. */
async function table(read: Read, global: boolean): Promise<Omit<CreateTableCommandInput, 'TableName'>> {
  // CloudFormation's default billing mode is PROVISIONED.
  const billing = global ? 'PAY_PER_REQUEST' : String((await read('BillingMode')) ?? 'PROVISIONED');
  const provisioned = billing === 'PROVISIONED';
  const units = provisioned ? throughput(await read('ProvisionedThroughput')) : undefined;
  const gsis = indexes(await read('GlobalSecondaryIndexes'), provisioned);
  const lsis: LocalSecondaryIndex[] = indexes(await read('LocalSecondaryIndexes'), false);
  const stream = await read('StreamSpecification');
  const viewType = isPlainObject(stream) ? stream['StreamViewType'] : undefined;
  return {
    AttributeDefinitions: records(await read('AttributeDefinitions')).map(
      (a): AttributeDefinition => ({
        AttributeName: String(a['AttributeName']),
        AttributeType: String(a['AttributeType']) as 'S' | 'N' | 'B',
      }),
    ),
    KeySchema: keySchema(await read('KeySchema')),
    BillingMode: billing as 'PROVISIONED' | 'PAY_PER_REQUEST',
    ...(units === undefined ? {} : { ProvisionedThroughput: units }),
    ...(gsis.length === 0 ? {} : { GlobalSecondaryIndexes: gsis }),
    ...(lsis.length === 0 ? {} : { LocalSecondaryIndexes: lsis }),
    ...(viewType === undefined ? {} : { StreamSpecification: { StreamEnabled: true, StreamViewType: String(viewType) as StreamViewType } }),
  };
}

const SIMPLE_TYPES: Readonly<Record<string, 'S' | 'N' | 'B'>> = { String: 'S', Number: 'N', Binary: 'B' };

/** SAM's `AWS::Serverless::SimpleTable`: one hash key (`id`, a string, unless `PrimaryKey` says otherwise). */
async function simpleTable(read: Read): Promise<Omit<CreateTableCommandInput, 'TableName'>> {
  const key = await read('PrimaryKey');
  const name = isPlainObject(key) && key['Name'] !== undefined ? String(key['Name']) : 'id';
  const type = isPlainObject(key) ? String(key['Type'] ?? 'String') : 'String';
  const units = throughput(await read('ProvisionedThroughput'));
  return {
    AttributeDefinitions: [{ AttributeName: name, AttributeType: SIMPLE_TYPES[type] ?? (type as 'S') }],
    KeySchema: [{ AttributeName: name, KeyType: 'HASH' }],
    BillingMode: units === undefined ? 'PAY_PER_REQUEST' : 'PROVISIONED',
    ...(units === undefined ? {} : { ProvisionedThroughput: units }),
  };
}

/** A table resource: its type, its properties (serverless.yml's `extensions` laid over them), its `Condition`. */
interface TableResource {
  readonly type: string;
  readonly properties: Readonly<Record<string, unknown>>;
  readonly condition: unknown;
}

/** The resource at `logicalId` with serverless.yml's `extensions` laid over it, and its type; `undefined` if it is no table. */
export async function tableResource(template: ReadTemplate, logicalId: string): Promise<TableResource | undefined> {
  const { expand } = template.scope;
  const resource = await expand(template.resources[logicalId]);
  const type = isPlainObject(resource) ? await expand(resource['Type']) : undefined;
  if (!isPlainObject(resource) || !TABLE_TYPES.some((t) => t === type)) return undefined;
  const extension = await expand(template.extensions[logicalId]);
  const extra = isPlainObject(extension) ? await expand(extension['Properties']) : undefined;
  const own = await expand(resource['Properties']);
  return {
    type: String(type),
    properties: { ...(isPlainObject(own) ? own : {}), ...(isPlainObject(extra) ? extra : {}) },
    condition: isPlainObject(extension) && extension['Condition'] !== undefined ? extension['Condition'] : resource['Condition'],
  };
}

/** The table `logicalId` declares, or `undefined` when it is no table or its `Condition` does not hold. */
export async function tableSpec(template: ReadTemplate, logicalId: string, tableName: string | undefined): Promise<TableSpec | undefined> {
  const found = await tableResource(template, logicalId);
  if (found === undefined) return undefined;
  if (!(await holds(template, logicalId, found.condition))) return undefined;
  const read = reader(template, logicalId, found.properties);
  const name = tableName ?? (await read('TableName'));
  if (typeof name !== 'string' || name === '') {
    throw new TemplateError(
      `${template.label}: table ${logicalId} has no TableName (CloudFormation makes one up when deployed): name it with tableNames: { ${logicalId}: '...' }.`,
      { template: template.label, logicalId },
    );
  }
  const definition =
    found.type === 'AWS::Serverless::SimpleTable'
      ? await simpleTable(read)
      : await table(read, found.type === 'AWS::DynamoDB::GlobalTable');
  const ttl = await read('TimeToLiveSpecification');
  const ttlAttribute = isPlainObject(ttl) && isTrue(ttl['Enabled']) ? String(ttl['AttributeName']) : undefined;
  return { logicalId, input: { TableName: name, ...definition }, ttlAttribute };
}

/** Whether the resource's `Condition` holds (a resource without one always exists). */
async function holds(template: ReadTemplate, logicalId: string, condition: unknown): Promise<boolean> {
  try {
    return await resourceExists(condition, template.scope);
  } catch (err) {
    throw err instanceof Unresolved ? unresolved(template, logicalId, 'Condition', err) : err;
  }
}
