/**
 * `createTablesFromTemplate`: the tables of your own serverless.yml or CloudFormation/SAM template, made in
 * DynamoDB Local for a test run, as serverless-dynamodb-local's `migrate` did. Every table is read and resolved
 * before the first is made, so a name that cannot be resolved makes nothing; a table that exists is kept when it
 * matches, and is a `TableSchemaMismatchError` when it does not.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { checkOptions, hasMethods, is, isPlainObject, type OptionRule, type RulesOf } from '../../engine/options.js';
import { CREDENTIALS, REGION } from '../dynamodb-local.js';
import { activeTable, ensureTtl, tableDifferences } from './compare.js';
import { TemplateError, TemplateTableMismatchError, Unresolved } from './errors.js';
import { type ReadTemplate, readTemplate } from './scope.js';
import { type TableSpec, tableResource, tableSpec } from './tables.js';

/** Options of {@link createTablesFromTemplate}. */
export interface CreateTablesFromTemplateOptions {
  /** The client to make the tables with. Give this or `endpoint`. */
  readonly client?: DynamoDBClient;
  /** DynamoDB Local's endpoint (`local.endpoint`): the tables are made with the region and credentials of `local.env`. */
  readonly endpoint?: string;
  /** The template's path (`serverless.yml`, `template.yaml`, `template.json`; relative to the working directory), or its content as an object. */
  readonly template: string | Readonly<Record<string, unknown>>;
  /** serverless.yml's stage (`--stage`): `${sls:stage}`, `${opt:stage}` and `params`. Default: `provider.stage`, else `dev`. */
  readonly stage?: string;
  /** CloudFormation parameters and pseudo parameters for `Ref` and `Fn::Sub`: `{ Env: 'test', 'AWS::AccountId': '123456789012' }`. */
  readonly parameters?: Readonly<Record<string, string>>;
  /** serverless.yml variable values by source and address: `{ 'ssm:/shop/prefix': 'shop', 'opt:region': 'eu-west-1', 'env:X': 'x' }`. */
  readonly variables?: Readonly<Record<string, string>>;
  /** Table names by logical id, over the template's: `{ OrdersTable: 'orders' }` (a table without a `TableName` needs one). */
  readonly tableNames?: Readonly<Record<string, string>>;
  /** Only these tables, by logical id. Default: every table of the template. */
  readonly logicalIds?: readonly string[];
}

/** A table of the template: made now (`created`), or there already with the declared schema (`existed`). */
export interface TemplateTable {
  readonly kind: 'created' | 'existed';
  /** The resource's logical id in the template: `OrdersTable`. */
  readonly logicalId: string;
  readonly tableName: string;
  /** The table's stream, when the template gives it one (`StreamSpecification`). */
  readonly streamArn: string | undefined;
}

const stringMap: OptionRule = {
  expected: 'an object of strings',
  check: (v) => isPlainObject(v) && Object.values(v).every((s) => typeof s === 'string'),
};

const rules = {
  client: hasMethods('a DynamoDBClient', 'send'),
  endpoint: is.nonEmptyString,
  template: {
    expected: 'a path or a template object',
    required: true,
    check: (v) => (typeof v === 'string' && v !== '') || isPlainObject(v),
  },
  stage: is.nonEmptyString,
  parameters: stringMap,
  variables: stringMap,
  tableNames: stringMap,
  logicalIds: { expected: 'an array of logical ids', check: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== '') },
} as const satisfies RulesOf<CreateTablesFromTemplateOptions>;

/**
 * Creates in DynamoDB Local the tables your serverless.yml (`resources`) or CloudFormation/SAM template (YAML or
 * JSON) declares: `AWS::DynamoDB::Table` (keys, global and local indexes, billing, stream, TTL), SAM's
 * `AWS::Serverless::SimpleTable` and `AWS::DynamoDB::GlobalTable`. Names written with `${self:...}`,
 * `${sls:stage}`, `${param:...}`, `${env:...}`, `${file(...)}`, `!Ref`, `!Sub`, `!Join`, `!If`, `!FindInMap` are
 * resolved from the options; one that needs a deploy (`${ssm:...}`, `!ImportValue`, a parameter without a default)
 * is a `TemplateError` naming the table and the expression, and nothing is made. Idempotent: a table that exists
 * with the declared schema is `existed`; one with another schema is a `TableSchemaMismatchError`. A YAML template
 * needs the `yaml` package (`npm install -D yaml`).
 *
 * @example
 * ```ts
 * import { createTablesFromTemplate, startDynamoDBLocal } from 'effectively-once/testing';
 * const local = await startDynamoDBLocal();
 * try {
 *   const tables = await createTablesFromTemplate({ endpoint: local.endpoint, template: 'serverless.yml', stage: 'test' });
 *   for (const table of tables) console.log(table.kind, table.logicalId, table.tableName); // created OrdersTable shop-test-orders
 * } finally {
 *   await local.stop();
 * }
 * ```
 */
export async function createTablesFromTemplate(options: CreateTablesFromTemplateOptions): Promise<TemplateTable[]> {
  checkOptions('createTablesFromTemplate', options, rules);
  if ((options.client === undefined) === (options.endpoint === undefined)) {
    throw new TypeError('createTablesFromTemplate: give one of the options "client" and "endpoint".');
  }
  const specs = await templateTables(options);
  const { endpoint } = options;
  const client = options.client ?? new DynamoDBClient({ endpoint: String(endpoint), region: REGION, credentials: CREDENTIALS });
  try {
    const made: TemplateTable[] = [];
    for (const spec of specs) made.push(await makeTable(client, spec, labelOf(options.template)));
    return made;
  } finally {
    if (options.client === undefined) client.destroy();
  }
}

const labelOf = (template: CreateTablesFromTemplateOptions['template']): string =>
  typeof template === 'string' ? template : 'template object';

/** Every table to make, read and resolved; an expression left unresolved outside a table is a `TemplateError` too. */
export async function templateTables(options: CreateTablesFromTemplateOptions): Promise<TableSpec[]> {
  const label = labelOf(options.template);
  try {
    const template = await readTemplate({
      template: options.template,
      stage: options.stage,
      parameters: options.parameters ?? {},
      variables: options.variables ?? {},
      env: process.env,
    });
    const ids = await tableIds(template, options);
    const specs: TableSpec[] = [];
    for (const id of ids) {
      const spec = await tableSpec(template, id, options.tableNames?.[id]);
      if (spec !== undefined) specs.push(spec);
    }
    return specs;
  } catch (err) {
    if (!(err instanceof Unresolved)) throw err;
    throw new TemplateError(`${label}: cannot resolve ${err.message}.`, { template: label, expression: err.expression, cause: err });
  }
}

/** The logical ids of the template's tables (only `logicalIds` when given); a `TemplateError` when an option names another. */
async function tableIds(template: ReadTemplate, options: CreateTablesFromTemplateOptions): Promise<string[]> {
  const tables: string[] = [];
  for (const id of Object.keys(template.resources)) if ((await tableResource(template, id)) !== undefined) tables.push(id);
  const named = [...(options.logicalIds ?? []), ...Object.keys(options.tableNames ?? {})];
  const unknown = named.find((id) => !tables.includes(id));
  if (unknown !== undefined) {
    throw new TemplateError(`${template.label} has no table ${unknown} (its tables: ${tables.join(', ') || 'none'}).`, {
      template: template.label,
      logicalId: unknown,
    });
  }
  return options.logicalIds === undefined ? tables : tables.filter((id) => options.logicalIds?.includes(id));
}

/** Makes one table (or finds it, as declared), waits until it is ACTIVE, and enables its TTL. */
async function makeTable(client: DynamoDBClient, spec: TableSpec, label: string): Promise<TemplateTable> {
  const { logicalId, input } = spec;
  let kind: TemplateTable['kind'] = 'created';
  try {
    await client.send(new CreateTableCommand(input));
  } catch (err) {
    // By name: the user's client may come from another copy of the SDK than this package's.
    if ((err as Error).name !== 'ResourceInUseException') {
      throw new TemplateError(`${label}: table ${logicalId} (${input.TableName}): DynamoDB refused it: ${(err as Error).message}`, {
        template: label,
        logicalId,
        cause: err,
      });
    }
    kind = 'existed';
  }
  const table = await activeTable(client, input.TableName);
  const differences = kind === 'existed' ? tableDifferences(input, table) : [];
  if (spec.ttlAttribute !== undefined) differences.push(...(await ensureTtl(client, input.TableName, spec.ttlAttribute)));
  if (differences.length > 0) throw new TemplateTableMismatchError(input.TableName, logicalId, differences);
  return { kind, logicalId, tableName: input.TableName, streamArn: table.LatestStreamArn };
}
