/**
 * docs/testing.md's "Tables from your serverless.yml or CloudFormation template" recipe, replayed on the packed
 * package in a fresh project as docs-local-kit.test.ts replays the claim recipe: the packages of both sections'
 * `npm install` lines, the README's transaction and state machine examples as `points.ts` and `orders.ts`, the
 * recipe's `file=` blocks as they are (with the claim recipe's `vitest.config.ts`), `tsc`, then `npx vitest run`
 * against a DynamoDB Local this test started (`DYNAMODB_ENDPOINT`), so that the tables and the effects can be read
 * once the run is over.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoDBLocal, startDynamoDBLocal } from '../../../src/testing/index.js';
import {
  consumerProject,
  fencedBlocks,
  installedBy,
  localKitDoc,
  readmeExample,
  runIn,
  shellLines,
  testingDocSection,
} from '../../support/consumer-project.js';

const recipe = testingDocSection('Tables from your serverless.yml or CloudFormation template');
/** The claim recipe's `vitest.config.ts`, which this recipe's step 1 reuses. */
const vitestConfig = fencedBlocks(localKitDoc, 'ts').filter((b) => /file=vitest\.config\.ts\b/.test(b.info));

let project = '';
let local: DynamoDBLocal | undefined;

beforeAll(async () => {
  project = consumerProject({
    prefix: 'effectively-once-template-consumer-',
    packages: installedBy([...shellLines(localKitDoc), ...shellLines(recipe)]),
    bins: [],
    markdown: recipe,
    langs: ['ts', 'yaml'],
    handlers: { 'points.ts': readmeExample('Transaction'), 'orders.ts': readmeExample('State machine') },
  });
  for (const { body } of vitestConfig) writeFileSync(join(project, 'vitest.config.ts'), body);
  const compilerOptions = {
    strict: true,
    skipLibCheck: false,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    noEmit: true,
  };
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...compilerOptions, types: ['node'] }, include: ['*.ts'] }),
  );
  local = await startDynamoDBLocal({ ignoreEnv: true });
}, 120_000);

afterAll(async () => {
  await local?.stop();
  if (project !== '') rmSync(project, { recursive: true, force: true });
});

const run = (cmd: string, args: readonly string[], env: Readonly<Record<string, string>> = {}) =>
  runIn(project, process.execPath, [join(project, 'node_modules', ...cmd.split('/')), ...args], { env });

describe('docs/testing.md, the tables of a serverless.yml, on the packed package in a fresh project', () => {
  it('takes the README examples as they are, the recipe serverless.yml, and installs yaml', () => {
    expect(installedBy(shellLines(recipe))).toEqual(['yaml']);
    expect(readFileSync(join(project, 'points.ts'), 'utf8')).toContain('strategy: transaction()');
    expect(readFileSync(join(project, 'orders.ts'), 'utf8')).toContain('export async function markPaid');
    expect(readFileSync(join(project, 'serverless.yml'), 'utf8')).toContain('TableName: points');
    expect(readFileSync(join(project, 'global-setup.ts'), 'utf8')).toContain("template: 'serverless.yml'");
    expect(vitestConfig).toHaveLength(1);
  });

  it('type-checks with skipLibCheck: false, the test files included', async () => {
    const result = await run('typescript/bin/tsc', ['-p', '.']);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);

  it('passes `npx vitest run`: the tables made from serverless.yml, each example applied once', async () => {
    const endpoint = local?.endpoint ?? '';
    const result = await run('vitest/vitest.mjs', ['run'], { DYNAMODB_ENDPOINT: endpoint });
    expect(result.output).toMatch(/Test Files\s+2 passed/);
    expect(result.output).toMatch(/Tests\s+2 passed/);
    expect(result.code).toBe(0);

    // The run borrowed this test's DynamoDB Local: its tables are as serverless.yml declares them...
    const db = local?.documentClient();
    if (db === undefined) throw new Error('no DynamoDB Local');
    try {
      const describe = async (name: string) => (await db.send(new DescribeTableCommand({ TableName: name }))).Table;
      expect((await describe('idempotency'))?.GlobalSecondaryIndexes?.map((g) => g.IndexName)).toEqual(['inflight-by-lease']);
      const ttl = await db.send(new DescribeTimeToLiveCommand({ TableName: 'idempotency' }));
      expect(ttl.TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'ENABLED', AttributeName: 'expiresAt' });
      expect((await describe('points'))?.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
      expect((await describe('orders'))?.KeySchema).toEqual([{ AttributeName: 'orderNo', KeyType: 'HASH' }]);
      // ...and hold the effects, each once.
      const item = async (TableName: string, Key: Record<string, string>) => (await db.send(new GetCommand({ TableName, Key }))).Item;
      expect(await item('points', { pk: 'customer#c-1' })).toEqual({ pk: 'customer#c-1', points: 17 });
      expect(await item('orders', { orderNo: 'o-1' })).toMatchObject({ status: 'PAID', version: 1 });
    } finally {
      db.destroy();
    }
  }, 60_000);

  it('without the yaml package: a TemplateError that says to install it', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'effectively-once-bare-'));
    try {
      cpSync(join(project, 'node_modules'), join(bare, 'node_modules'), { recursive: true, verbatimSymlinks: true });
      rmSync(join(bare, 'node_modules', 'yaml'));
      cpSync(join(project, 'serverless.yml'), join(bare, 'serverless.yml'));
      writeFileSync(join(bare, 'package.json'), '{ "type": "module" }\n');
      const script =
        "import('effectively-once/testing').then((t) => t.createTablesFromTemplate({ endpoint: 'http://127.0.0.1:9', template: 'serverless.yml' }))" +
        '.then(() => console.log("made"), (e) => console.log(e.name + ": " + e.message))';
      const result = await runIn(bare, process.execPath, ['--input-type=module', '-e', script]);
      expect(result.output.trim()).toBe(
        `TemplateError: Reading ${join(bare, 'serverless.yml')} (YAML) needs the \`yaml\` package: run \`npm install -D yaml\`, ` +
          'or pass the template as JSON or as an object.',
      );
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
