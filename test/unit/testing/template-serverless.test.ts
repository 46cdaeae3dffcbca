/**
 * Reading a serverless.yml's tables (no DynamoDB here): `resources` (one object or a list of `${file(...)}`s) with
 * `extensions`, the Serverless Framework's variables resolved as `serverless package` would with the stage and
 * values passed, and a clear refusal of a value only AWS knows. This repository's own serverless.yml (its table
 * definitions in infra/tables.json, its names in `extensions`) reads as the package's table definitions.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tableDefinitions } from '../../../infra/tables.js';
import { idempotencyTable, toCreateTableInput } from '../../../src/stores/dynamodb/table.js';
import { TemplateError } from '../../../src/testing/index.js';
import { type CreateTablesFromTemplateOptions, templateTables } from '../../../src/testing/templates/create.js';
import { fencedBlocks, testingDocSection } from '../../support/consumer-project.js';
import { repoRoot } from '../../support/packed.js';

const dir = mkdtempSync(join(tmpdir(), 'template-sls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const read = (template: CreateTablesFromTemplateOptions['template'], more: Partial<CreateTablesFromTemplateOptions> = {}) =>
  templateTables({ endpoint: 'http://127.0.0.1:1', template, ...more });

async function failure(promise: Promise<unknown>): Promise<TemplateError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TemplateError);
  return err as TemplateError;
}

const names = async (template: string, more: Partial<CreateTablesFromTemplateOptions> = {}) =>
  (await read(template, more)).map((t) => `${t.logicalId}=${t.input.TableName}`);

describe("this repository's serverless.yml", () => {
  const serverlessYml = join(repoRoot, 'serverless.yml');

  it('reads its three tables as infra/tables.json defines them, named from custom.tables and the stage', async () => {
    const tables = await read(serverlessYml, { stage: 'ci' });
    const expected = (name: string, def: keyof typeof tableDefinitions) =>
      toCreateTableInput(`effectively-once-ci-${name}`, tableDefinitions[def]);
    expect(tables.map((t) => t.input)).toEqual([
      expected('idempotency', 'idempotency'),
      expected('orders', 'orders'),
      expected('points', 'points'),
    ]);
    expect(tables.map((t) => [t.logicalId, t.ttlAttribute])).toEqual([
      ['IdempotencyTable', 'expiresAt'],
      ['OrdersTable', 'expiresAt'],
      ['PointsTable', undefined],
    ]);
  });

  it("takes the stage from provider.stage (`${opt:stage, 'dev'}`) when none is passed", async () => {
    expect(await names(serverlessYml)).toEqual([
      'IdempotencyTable=effectively-once-dev-idempotency',
      'OrdersTable=effectively-once-dev-orders',
      'PointsTable=effectively-once-dev-points',
    ]);
  });
});

file(
  'shop/resources/tables.yml',
  `Resources:
  OrdersTable:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: \${self:custom.prefix}-orders
      AttributeDefinitions: [{ AttributeName: orderNo, AttributeType: S }]
      KeySchema: [{ AttributeName: orderNo, KeyType: HASH }]
      BillingMode: \${param:billing}
      StreamSpecification:
        StreamViewType: \${self:custom.streams.\${sls:stage}, 'NEW_IMAGE'}
`,
);
file('shop/resources/ledger.json', JSON.stringify({ pk: { AttributeName: 'pk', AttributeType: 'S' } }));
const shop = file(
  'shop/serverless.yml',
  `service: shop
provider:
  name: aws
  stage: \${opt:stage, 'dev'}
  region: \${opt:region, 'eu-west-1'}
  environment:
    SECRET: \${ssm:/shop/secret}
params:
  prod: { billing: PROVISIONED }
  default: { billing: PAY_PER_REQUEST }
custom:
  prefix: \${self:service}-\${sls:stage}
  streams: { prod: NEW_AND_OLD_IMAGES }
functions:
  paid:
    handler: paid.handler
    events: [{ sqs: { arn: !GetAtt PaidQueue.Arn } }]
resources:
  - \${file(./resources/tables.yml)}
  - Resources:
      PaidQueue: { Type: AWS::SQS::Queue }
      LedgerTable:
        Type: AWS::DynamoDB::Table
        Properties:
          AttributeDefinitions:
            - \${file(./resources/ledger.json):pk}
          KeySchema: [{ AttributeName: pk, KeyType: HASH }]
          BillingMode: PAY_PER_REQUEST
          TimeToLiveSpecification:
            AttributeName: expiresAt
            Enabled: \${env:LEDGER_TTL, 'true'}
    extensions:
      LedgerTable:
        Properties:
          TableName: !Sub '\${AWS::StackName}-ledger-\${AWS::Region}'
`,
);

describe('a serverless.yml with resources from files, params, extensions and fallbacks', () => {
  it('resolves self, sls:stage, opt with a fallback, param by stage, file with a key, env with a fallback, AWS::StackName', async () => {
    const tables = await read(shop);
    expect(tables.map((t) => t.input.TableName)).toEqual(['shop-dev-orders', 'shop-dev-ledger-eu-west-1']);
    expect(tables[0]?.input).toMatchObject({ BillingMode: 'PAY_PER_REQUEST', StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
    expect(tables[1]?.input.AttributeDefinitions).toEqual([{ AttributeName: 'pk', AttributeType: 'S' }]);
    expect(tables[1]?.ttlAttribute).toBe('expiresAt');
  });

  it('follows the stage passed: params.prod, the nested ${self:custom.streams.${sls:stage}}, and the stack name', async () => {
    const tables = await read(shop, { stage: 'prod', variables: { 'opt:region': 'us-west-2' } });
    expect(tables.map((t) => t.input.TableName)).toEqual(['shop-prod-orders', 'shop-prod-ledger-us-west-2']);
    expect(tables[0]?.input).toMatchObject({ BillingMode: 'PROVISIONED', StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  });

  it('reads ${env:...} from the environment, and from variables first', async () => {
    process.env['LEDGER_TTL'] = 'false';
    try {
      expect((await read(shop))[1]?.ttlAttribute).toBeUndefined();
      expect((await read(shop, { variables: { 'env:LEDGER_TTL': 'true' } }))[1]?.ttlAttribute).toBe('expiresAt');
    } finally {
      delete process.env['LEDGER_TTL'];
    }
  });
});

/** A serverless.yml with one table named `name`, the rest of the file `more`. */
const withName = (name: string, more = '') =>
  file(
    'named/serverless.yml',
    `service: named\n${more}resources:\n  Resources:\n    T:\n      Type: AWS::DynamoDB::Table\n      Properties:\n        TableName: ${name}\n` +
      '        KeySchema: [{ AttributeName: id, KeyType: HASH }]\n        AttributeDefinitions: [{ AttributeName: id, AttributeType: S }]\n',
  );

describe('serverless variables only AWS, or nobody, can resolve', () => {
  it('refuses ${ssm:...} (even with a fallback: a deploy would read SSM), and takes it from variables', async () => {
    for (const [written, source] of [
      ['${ssm:/shop/prefix}-orders', 'ssm:/shop/prefix'],
      ["${ssm:/shop/prefix, 'shop'}-orders", 'ssm:/shop/prefix'],
    ] as const) {
      const path = withName(written);
      const err = await failure(read(path));
      expect([err.logicalId, err.expression]).toEqual(['T', `\${${source}}`]);
      expect(err.message).toBe(
        `${path}: table T: cannot resolve Properties.TableName: \${${source}}: is known only when deployed; ` +
          `pass variables: { '${source}': '...' } (or name the table: tableNames: { T: '...' }).`,
      );
      expect((await read(path, { variables: { [source]: 'acme' } }))[0]?.input.TableName).toBe('acme-orders');
    }
  });

  it('refuses an unset environment variable, a missing self value, a cycle, sls:instanceId and aws:accountId', async () => {
    const cases: [string, string, string][] = [
      ['${env:EO_NOT_SET_ANYWHERE}', '${env:EO_NOT_SET_ANYWHERE}', 'environment variable EO_NOT_SET_ANYWHERE is not set'],
      ['${self:custom.nothing}', '${self:custom.nothing}', 'has no value in the configuration'],
      ['${self:custom.a}', '${self:custom.a}', 'refers to itself (${self:custom.a} -> ${self:custom.b} -> ${self:custom.a})'],
      ['x-${sls:instanceId}', '${sls:instanceId}', "is known only when deployed; pass variables: { 'sls:instanceId': '...' }"],
      ['${aws:accountId}-t', '${aws:accountId}', "is known only when deployed; pass variables: { 'aws:accountId': '...' }"],
    ];
    for (const [name, expression, why] of cases) {
      const err = await failure(read(withName(name, 'custom:\n  a: ${self:custom.b}\n  b: ${self:custom.a}\n')));
      expect(err.expression).toBe(expression);
      expect(err.message).toContain(`Properties.TableName: ${expression}: ${why}`);
    }
  });

  it('refuses a variable that makes resources unreadable, with no table to name', async () => {
    const path = file('broken/serverless.yml', 'service: broken\nresources: ${file(./missing.yml)}\n');
    const err = await failure(read(path));
    expect([err.logicalId, err.message]).toEqual([
      undefined,
      `${path}: cannot resolve \${file(./missing.yml)}: the file or the key in it does not exist.`,
    ]);
  });

  it('reads a serverless configuration passed as an object (a serverless.ts export)', async () => {
    const config = {
      service: 'typed',
      provider: { name: 'aws', stage: 'qa' },
      resources: {
        Resources: {
          T: {
            Type: 'AWS::DynamoDB::Table',
            Properties: {
              TableName: '${self:service}-${sls:stage}-t',
              KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
              AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
              BillingMode: 'PAY_PER_REQUEST',
            },
          },
        },
      },
    };
    expect((await read(config))[0]?.input.TableName).toBe('typed-qa-t');
  });
});

describe("docs/testing.md's recipe", () => {
  const recipe = testingDocSection('Tables from your serverless.yml or CloudFormation template');

  it("declares the idempotency table as the package defines it, and the README examples' points and orders tables", async () => {
    const yml = fencedBlocks(recipe, 'yaml').find((b) => b.info.includes('file=serverless.yml'))?.body ?? '';
    const tables = await read(file('recipe/serverless.yml', yml));
    expect(tables.map((t) => t.input.TableName)).toEqual(['idempotency', 'points', 'orders']);
    expect(tables[0]?.input).toEqual(toCreateTableInput('idempotency', idempotencyTable));
    expect(tables[0]?.ttlAttribute).toBe(idempotencyTable.TimeToLiveSpecification?.AttributeName);
    expect(tables.slice(1).map((t) => t.input.KeySchema)).toEqual([
      [{ AttributeName: 'pk', KeyType: 'HASH' }],
      [{ AttributeName: 'orderNo', KeyType: 'HASH' }],
    ]);
  });

  it('shows the message a ${ssm:...} table name really gets', async () => {
    const shown = fencedBlocks(recipe, 'text')[0]?.body.trim();
    const path = file(
      'ssm/serverless.yml',
      'service: shop\nresources:\n  Resources:\n    OrdersTable:\n      Type: AWS::DynamoDB::Table\n      Properties:\n        TableName: ${ssm:/shop/prefix}\n',
    );
    const err = await failure(read(path));
    expect(err.message.replace(path, 'serverless.yml')).toBe(shown);
  });
});
