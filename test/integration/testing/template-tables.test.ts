/**
 * `createTablesFromTemplate` on DynamoDB Local: this repository's serverless.yml makes its three tables as
 * infra/tables.json defines them (DescribeTable and DescribeTimeToLive say so), again and twice at once without
 * harm; a CloudFormation template's provisioned table with both kinds of index, its stream and TTL; a table left
 * with another schema, a refusal that makes nothing, and a definition DynamoDB refuses, each a clear error.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ListTablesCommand,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { tableDefinitions } from '../../../infra/tables.js';
import { createTablesFromTemplate, TableSchemaMismatchError, TemplateError } from '../../../src/testing/index.js';
import { ensureTtl } from '../../../src/testing/templates/compare.js';
import { testDynamo } from '../../support/dynamodb.js';
import { repoRoot } from '../../support/packed.js';

const { client } = testDynamo();
const endpoint = inject('dynamodbEndpoint');
const serverlessYml = join(repoRoot, 'serverless.yml');
const dir = mkdtempSync(join(tmpdir(), 'template-tables-'));
afterAll(() => {
  client.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const stage = (): string => `t${randomUUID().slice(0, 8)}`;
const describeTable = async (name: string): Promise<TableDescription | undefined> =>
  (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
const ttlOf = async (name: string) => (await client.send(new DescribeTimeToLiveCommand({ TableName: name }))).TimeToLiveDescription;
const keysOf = (keys: readonly { AttributeName?: string | undefined; KeyType?: string | undefined }[] | undefined) =>
  (keys ?? []).map((k) => `${k.AttributeName}:${k.KeyType}`);

describe("this repository's serverless.yml on DynamoDB Local", () => {
  it('makes its three tables as infra/tables.json defines them: keys, attributes, index, stream, TTL, on demand', async () => {
    const s = stage();
    const made = await createTablesFromTemplate({ endpoint, template: serverlessYml, stage: s });
    expect(made.map((t) => [t.kind, t.logicalId, t.tableName])).toEqual([
      ['created', 'IdempotencyTable', `effectively-once-${s}-idempotency`],
      ['created', 'OrdersTable', `effectively-once-${s}-orders`],
      ['created', 'PointsTable', `effectively-once-${s}-points`],
    ]);
    for (const [logical, table] of [
      ['idempotency', made[0]],
      ['orders', made[1]],
      ['points', made[2]],
    ] as const) {
      const def = tableDefinitions[logical];
      const found = await describeTable(table?.tableName ?? '');
      expect(keysOf(found?.KeySchema)).toEqual(keysOf(def.KeySchema));
      expect(found?.AttributeDefinitions).toEqual(def.AttributeDefinitions);
      expect(found?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
      expect(found?.GlobalSecondaryIndexes?.map((g) => [g.IndexName, keysOf(g.KeySchema), g.Projection])).toEqual(
        def.GlobalSecondaryIndexes?.map((g) => [g.IndexName, keysOf(g.KeySchema), g.Projection]),
      );
      expect(found?.StreamSpecification).toEqual(
        def.StreamSpecification === undefined ? undefined : { StreamEnabled: true, StreamViewType: def.StreamSpecification.StreamViewType },
      );
      expect(table?.streamArn).toBe(found?.LatestStreamArn);
      const ttl = await ttlOf(table?.tableName ?? '');
      expect(ttl).toEqual(
        def.TimeToLiveSpecification === undefined
          ? { TimeToLiveStatus: 'DISABLED' }
          : { TimeToLiveStatus: 'ENABLED', AttributeName: def.TimeToLiveSpecification.AttributeName },
      );
    }
    expect(made[1]?.streamArn).toMatch(/\/stream\//);
  });

  it('is idempotent: a second run finds every table as declared', async () => {
    const s = stage();
    await createTablesFromTemplate({ endpoint, template: serverlessYml, stage: s });
    const again = await createTablesFromTemplate({ client, template: serverlessYml, stage: s });
    expect(again.map((t) => t.kind)).toEqual(['existed', 'existed', 'existed']);
    // The client passed is the caller's: still usable.
    expect((await client.send(new ListTablesCommand({}))).TableNames).toContain(`effectively-once-${s}-points`);
  });

  it('runs at once (two test files setting up together): each table made once, every run succeeds, TTL enabled', async () => {
    const s = stage();
    // Four, so that two of them meet between reading TTL as off and enabling it (the second is told "already enabled").
    const runs = await Promise.all([0, 1, 2, 3].map(() => createTablesFromTemplate({ endpoint, template: serverlessYml, stage: s })));
    for (const i of [0, 1, 2]) expect(runs.map((r) => r[i]?.kind).sort()).toEqual(['created', 'existed', 'existed', 'existed']);
    expect(await ttlOf(`effectively-once-${s}-idempotency`)).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' });
  });

  it('enables TTL from eight setups at once: those told "already enabled" read what the first enabled', async () => {
    const name = `ttl-${stage()}`;
    await client.send(new CreateTableCommand({ TableName: name, ...keyedById }));
    expect(await Promise.all(Array.from({ length: 8 }, () => ensureTtl(client, name, 'expiresAt')))).toEqual(Array(8).fill([]));
    // Another attribute than the one enabled is a difference, not an error of DynamoDB's.
    expect(await ensureTtl(client, name, 'ttl')).toEqual(['TTL: expected on ttl, found on expiresAt']);
  });
});

const keyedById: Omit<CreateTableCommandInput, 'TableName'> = {
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
  BillingMode: 'PAY_PER_REQUEST',
};

const ordersYaml = (name: string) => `Parameters:
  Name: { Type: String }
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Ref Name
      BillingMode: PROVISIONED
      ProvisionedThroughput: { ReadCapacityUnits: 4, WriteCapacityUnits: 2 }
      AttributeDefinitions:
        - { AttributeName: pk, AttributeType: S }
        - { AttributeName: sk, AttributeType: N }
        - { AttributeName: customer, AttributeType: S }
      KeySchema: [{ AttributeName: pk, KeyType: HASH }, { AttributeName: sk, KeyType: RANGE }]
      GlobalSecondaryIndexes:
        - IndexName: by-customer
          KeySchema: [{ AttributeName: customer, KeyType: HASH }]
          Projection: { ProjectionType: ALL }
          ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 }
      LocalSecondaryIndexes:
        - IndexName: by-customer-local
          KeySchema: [{ AttributeName: pk, KeyType: HASH }, { AttributeName: customer, KeyType: RANGE }]
          Projection: { ProjectionType: KEYS_ONLY }
      StreamSpecification: { StreamViewType: NEW_AND_OLD_IMAGES }
      TimeToLiveSpecification: { AttributeName: ttl, Enabled: true }
  ${name === '' ? '' : `Broken:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      TableName: !ImportValue ${name}\n`}`;

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('a CloudFormation template on DynamoDB Local', () => {
  it('makes a provisioned table with a global and a local index, a NEW_AND_OLD_IMAGES stream and TTL', async () => {
    const name = `orders-${stage()}`;
    const [made] = await createTablesFromTemplate({ endpoint, template: file('orders.yaml', ordersYaml('')), parameters: { Name: name } });
    expect(made?.kind).toBe('created');
    const found = await describeTable(name);
    expect(keysOf(found?.KeySchema)).toEqual(['pk:HASH', 'sk:RANGE']);
    expect(found?.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 4, WriteCapacityUnits: 2 });
    expect(found?.GlobalSecondaryIndexes?.map((g) => [g.IndexName, keysOf(g.KeySchema), g.Projection?.ProjectionType])).toEqual([
      ['by-customer', ['customer:HASH'], 'ALL'],
    ]);
    expect(found?.LocalSecondaryIndexes?.map((g) => [g.IndexName, keysOf(g.KeySchema), g.Projection?.ProjectionType])).toEqual([
      ['by-customer-local', ['pk:HASH', 'customer:RANGE'], 'KEYS_ONLY'],
    ]);
    expect(found?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(await ttlOf(name)).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: 'ttl' });
  });

  it('makes nothing when one table cannot be resolved: the error names it and its expression', async () => {
    const name = `orders-${stage()}`;
    const template = file('broken.yaml', ordersYaml('shared-prefix'));
    const err = await createTablesFromTemplate({ endpoint, template, parameters: { Name: name } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateError);
    expect((err as TemplateError).logicalId).toBe('Broken');
    expect((err as TemplateError).expression).toBe('{"Fn::ImportValue":"shared-prefix"}');
    expect((await client.send(new ListTablesCommand({}))).TableNames).not.toContain(name);
  });

  it('refuses a table left with another schema, listing the differences', async () => {
    const name = `orders-${stage()}`;
    await client.send(new CreateTableCommand({ TableName: name, ...keyedById }));
    const err = await createTablesFromTemplate({
      endpoint,
      template: file('orders.yaml', ordersYaml('')),
      parameters: { Name: name },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TableSchemaMismatchError);
    expect((err as TableSchemaMismatchError).differences).toEqual([
      'key schema: expected pk (HASH), sk (RANGE), found id (HASH)',
      'global index by-customer: missing',
      'local index by-customer-local: missing',
      'stream: expected NEW_AND_OLD_IMAGES, found none',
    ]);
    expect((err as Error).message).toMatch(
      new RegExp(`^Table ${name} \\(Orders\\) exists with another schema than the template declares: key schema`),
    );
  });

  it('names the table DynamoDB refuses (a key on an undefined attribute), with its error as the cause', async () => {
    const template = {
      Resources: {
        Bad: {
          Type: 'AWS::DynamoDB::Table',
          Properties: {
            TableName: `bad-${stage()}`,
            BillingMode: 'PAY_PER_REQUEST',
            KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          },
        },
      },
    };
    const err = await createTablesFromTemplate({ endpoint, template }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateError);
    expect((err as TemplateError).logicalId).toBe('Bad');
    expect((err as Error).message).toMatch(/^template object: table Bad \(bad-\w+\): DynamoDB refused it: /);
    expect(((err as Error).cause as Error).name).toBe('ValidationException');
  });
});
