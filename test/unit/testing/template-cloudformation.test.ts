/**
 * Reading a CloudFormation or SAM template's tables (no DynamoDB here: the requests `createTablesFromTemplate`
 * would send): keys, attributes, billing, global and local indexes, streams and TTL, the short-form YAML tags,
 * the intrinsic functions a test can evaluate, and a clear refusal, naming the table and the expression, of
 * those only a deploy can. test/integration/testing/template-tables.test.ts makes them on DynamoDB Local.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTablesFromTemplate, TemplateError } from '../../../src/testing/index.js';
import { type CreateTablesFromTemplateOptions, templateTables } from '../../../src/testing/templates/create.js';

const dir = mkdtempSync(join(tmpdir(), 'template-cfn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` as `name` in the test folder and returns its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const read = (template: CreateTablesFromTemplateOptions['template'], more: Partial<CreateTablesFromTemplateOptions> = {}) =>
  templateTables({ endpoint: 'http://127.0.0.1:1', template, ...more });

/** The error `promise` rejects with (a test fails if it resolves). */
async function failure(promise: Promise<unknown>): Promise<TemplateError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TemplateError);
  return err as TemplateError;
}

const shop = file(
  'template.yaml',
  `AWSTemplateFormatVersion: '2010-09-09'
Transform: AWS::Serverless-2016-10-31
Parameters:
  Env:
    Type: String
    Default: dev
  Prefix:
    Type: String
Conditions:
  IsProd: !Equals [!Ref Env, prod]
  HasStream: !Not [!Condition IsProd]
Mappings:
  Capacity:
    dev: { read: 2, write: 3 }
    prod: { read: 20, write: 30 }
Resources:
  Key:
    Type: AWS::KMS::Key
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub '\${Prefix}-orders-\${Env}'
      BillingMode: PROVISIONED
      ProvisionedThroughput:
        ReadCapacityUnits: !FindInMap [Capacity, !Ref Env, read]
        WriteCapacityUnits: !FindInMap [Capacity, !Ref Env, write]
      AttributeDefinitions:
        - { AttributeName: pk, AttributeType: S }
        - { AttributeName: sk, AttributeType: S }
        - { AttributeName: customer, AttributeType: S }
        - { AttributeName: placedAt, AttributeType: N }
      KeySchema:
        - { AttributeName: pk, KeyType: HASH }
        - { AttributeName: sk, KeyType: RANGE }
      GlobalSecondaryIndexes:
        - IndexName: by-customer
          KeySchema:
            - { AttributeName: customer, KeyType: HASH }
            - { AttributeName: placedAt, KeyType: RANGE }
          Projection: { ProjectionType: INCLUDE, NonKeyAttributes: [total] }
          ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: '1' }
      LocalSecondaryIndexes:
        - IndexName: by-placed
          KeySchema:
            - { AttributeName: pk, KeyType: HASH }
            - { AttributeName: placedAt, KeyType: RANGE }
          Projection: { ProjectionType: KEYS_ONLY }
      StreamSpecification: !If [HasStream, { StreamViewType: NEW_AND_OLD_IMAGES }, !Ref AWS::NoValue]
      TimeToLiveSpecification: { AttributeName: expiresAt, Enabled: true }
      SSESpecification: { SSEEnabled: true, SSEType: KMS, KMSMasterKeyId: !GetAtt Key.Arn }
      Tags: [{ Key: team, Value: !ImportValue team-name }]
  Sessions:
    Type: AWS::Serverless::SimpleTable
    Properties:
      TableName: !Join ['-', [!Ref Prefix, sessions]]
  Carts:
    Type: AWS::Serverless::SimpleTable
    Condition: IsProd
    Properties:
      TableName: carts
      PrimaryKey: { Name: cartNo, Type: Number }
      ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 }
`,
);

describe('a CloudFormation/SAM template in YAML, short forms and all', () => {
  it('reads the table: keys, attributes, provisioned throughput, both kinds of index, the stream and TTL', async () => {
    const [orders, sessions, ...rest] = await read(shop, { parameters: { Prefix: 'shop' } });
    expect(rest).toEqual([]); // Carts exists only when IsProd holds
    expect(orders).toEqual({
      logicalId: 'Orders',
      ttlAttribute: 'expiresAt',
      input: {
        TableName: 'shop-orders-dev',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
          { AttributeName: 'customer', AttributeType: 'S' },
          { AttributeName: 'placedAt', AttributeType: 'N' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PROVISIONED',
        ProvisionedThroughput: { ReadCapacityUnits: 2, WriteCapacityUnits: 3 },
        GlobalSecondaryIndexes: [
          {
            IndexName: 'by-customer',
            KeySchema: [
              { AttributeName: 'customer', KeyType: 'HASH' },
              { AttributeName: 'placedAt', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['total'] },
            ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
          },
        ],
        LocalSecondaryIndexes: [
          {
            IndexName: 'by-placed',
            KeySchema: [
              { AttributeName: 'pk', KeyType: 'HASH' },
              { AttributeName: 'placedAt', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      },
    });
    expect(sessions).toEqual({
      logicalId: 'Sessions',
      ttlAttribute: undefined,
      input: {
        TableName: 'shop-sessions',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      },
    });
  });

  it('evaluates conditions: with Env=prod the stream is gone (AWS::NoValue) and the conditional SimpleTable is there', async () => {
    const tables = await read(shop, { parameters: { Prefix: 'shop', Env: 'prod' } });
    expect(tables.map((t) => t.input.TableName)).toEqual(['shop-orders-prod', 'shop-sessions', 'carts']);
    expect(tables[0]?.input.StreamSpecification).toBeUndefined();
    expect(tables[2]?.input).toMatchObject({
      AttributeDefinitions: [{ AttributeName: 'cartNo', AttributeType: 'N' }],
      KeySchema: [{ AttributeName: 'cartNo', KeyType: 'HASH' }],
      BillingMode: 'PROVISIONED',
      ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
    });
  });

  it('refuses a parameter with no Default and no value passed, naming the table, the expression and what to pass', async () => {
    const err = await failure(read(shop));
    expect(err.logicalId).toBe('Orders');
    expect(err.expression).toBe('{"Fn::Sub":"${Prefix}-orders-${Env}"}');
    expect(err.message).toBe(
      `${shop}: table Orders: cannot resolve Properties.TableName: {"Fn::Sub":"\${Prefix}-orders-\${Env}"}: ` +
        "parameter Prefix has no Default; pass parameters: { Prefix: '...' } (or name the table: tableNames: { Orders: '...' }).",
    );
  });

  it('takes names from tableNames over the template, and makes only the tables logicalIds lists', async () => {
    const tables = await read(shop, { tableNames: { Orders: 'orders', Sessions: 'sessions' }, logicalIds: ['Sessions'] });
    expect(tables.map((t) => [t.logicalId, t.input.TableName])).toEqual([['Sessions', 'sessions']]);
  });

  it('refuses a logical id that is not a table of the template, listing its tables', async () => {
    const err = await failure(read(shop, { parameters: { Prefix: 'p' }, tableNames: { Key: 'k' } }));
    expect(err.message).toBe(`${shop} has no table Key (its tables: Orders, Sessions, Carts).`);
  });
});

const refusals: [string, string, string, Record<string, string>?][] = [
  ['!ImportValue shared-prefix', '{"Fn::ImportValue":"shared-prefix"}', 'is known only when the stack is deployed'],
  ['!GetAtt Other.Arn', '{"Fn::GetAtt":["Other","Arn"]}', 'is known only when the stack is deployed'],
  ['!Ref Other', '{"Ref":"Other"}', 'is the physical id of resource Other, which is known only when the stack is deployed'],
  ["!Sub '${Other.Name}-x'", '{"Fn::Sub":"${Other.Name}-x"}', '${Other.Name} is an attribute of a resource'],
  [
    "!Sub '${AWS::AccountId}-orders'",
    '{"Fn::Sub":"${AWS::AccountId}-orders"}',
    "is known only when the stack is deployed; pass parameters: { 'AWS::AccountId': '...' }",
  ],
  ['!Base64 orders', '{"Fn::Base64":"orders"}', '(Fn::Base64) is not evaluated by this reader'],
];

describe('names only a deploy knows', () => {
  for (const [name, expression, why] of refusals) {
    it(`refuses ${name}`, async () => {
      const path = file(
        'refuse.yaml',
        `Resources:\n  Other: { Type: AWS::SQS::Queue }\n  T:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      TableName: ${name}\n` +
          '      KeySchema: [{ AttributeName: id, KeyType: HASH }]\n      AttributeDefinitions: [{ AttributeName: id, AttributeType: S }]\n',
      );
      const err = await failure(read(path));
      expect([err.logicalId, err.expression]).toEqual(['T', expression]);
      expect(err.message).toContain(`cannot resolve Properties.TableName: ${expression}: ${why}`);
    });
  }

  it('resolves the pseudo parameter once it is passed', async () => {
    const path = file('pseudo.json', JSON.stringify(table({ 'Fn::Sub': '${AWS::AccountId}-orders' })));
    expect((await read(path, { parameters: { 'AWS::AccountId': '123456789012' } }))[0]?.input.TableName).toBe('123456789012-orders');
  });

  it('refuses any property it needs, not only the name: BillingMode from a parameter with no default', async () => {
    const template = { Parameters: { Mode: { Type: 'String' } }, ...table('orders', { BillingMode: { Ref: 'Mode' } }) };
    const err = await failure(read(template));
    expect(err.message).toBe(
      'template object: table T: cannot resolve Properties.BillingMode: {"Ref":"Mode"}: parameter Mode has no Default; pass parameters: { Mode: \'...\' }.',
    );
  });

  it('asks for a name when the table has none (CloudFormation would make one up)', async () => {
    const err = await failure(read(table(undefined)));
    expect(err.message).toBe(
      "template object: table T has no TableName (CloudFormation makes one up when deployed): name it with tableNames: { T: '...' }.",
    );
    expect((await read(table(undefined), { tableNames: { T: 'named' } }))[0]?.input.TableName).toBe('named');
  });
});

/** A template object with one on-demand table `T` keyed by `id`. */
function table(name: unknown, more: Record<string, unknown> = {}): Record<string, unknown> {
  const properties = {
    ...(name === undefined ? {} : { TableName: name }),
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
    ...more,
  };
  return { Resources: { T: { Type: 'AWS::DynamoDB::Table', Properties: properties } } };
}

describe('templates that cannot be read', () => {
  it('a missing file, YAML that does not parse, JSON that does not, and a file with no resources', async () => {
    expect((await failure(read(join(dir, 'nope.yml')))).message).toMatch(/^Template .*nope\.yml not found \(from /);
    expect((await failure(read(file('bad.yml', 'Resources: [\n')))).message).toMatch(/bad\.yml is not valid YAML: /);
    expect((await failure(read(file('bad.json', '{')))).message).toMatch(/bad\.json is not valid JSON: /);
    expect((await failure(read(file('none.json', '{ "Outputs": {} }')))).message).toMatch(
      /none\.json has neither Resources \(CloudFormation, SAM\) nor resources \(serverless\.yml\)\.$/,
    );
  });

  it('reads a GlobalTable as one on-demand table with its keys, indexes, stream and TTL', async () => {
    const template = table('global', {
      BillingMode: 'PROVISIONED',
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: 'true' },
      Replicas: [{ Region: 'eu-west-1' }],
    });
    (template['Resources'] as { T: { Type: string } }).T.Type = 'AWS::DynamoDB::GlobalTable';
    const [global] = await read(template);
    expect(global?.input.BillingMode).toBe('PAY_PER_REQUEST');
    expect(global?.input.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(global?.ttlAttribute).toBe('ttl');
  });
});

describe('createTablesFromTemplate options', () => {
  const template = table('t');
  it('names an unknown option, and a mistyped one', async () => {
    // @ts-expect-error: not an option
    await expect(createTablesFromTemplate({ endpoint: 'http://x', template, tableName: 't' })).rejects.toThrow(
      new TypeError(
        'createTablesFromTemplate: unknown option "tableName" (known options: client, endpoint, template, stage, parameters, variables, tableNames, logicalIds).',
      ),
    );
    // @ts-expect-error: parameters are strings
    await expect(createTablesFromTemplate({ endpoint: 'http://x', template, parameters: { Count: 3 } })).rejects.toThrow(
      'createTablesFromTemplate: option "parameters" must be an object of strings, got object.',
    );
    // @ts-expect-error: template is required
    await expect(createTablesFromTemplate({ endpoint: 'http://x' })).rejects.toThrow('option "template" is required');
  });

  it('takes exactly one of client and endpoint', async () => {
    const message = 'createTablesFromTemplate: give one of the options "client" and "endpoint".';
    await expect(createTablesFromTemplate({ template })).rejects.toThrow(message);
    await expect(createTablesFromTemplate({ template, endpoint: 'http://x', client: { send: async () => ({}) } as never })).rejects.toThrow(
      message,
    );
  });
});
