/**
 * The AWS SDK range docs/compatibility.md promises starts at the peer range's floor (`^3.370.0`): the packed
 * package runs on `@aws-sdk/client-dynamodb`, `lib-dynamodb` and `util-dynamodb` at that version (devDependencies
 * under npm aliases, `sdk-floor-*`), on DynamoDB Local. A consumer project under node_modules/.cache links them
 * as `@aws-sdk/*` beside the packed package and `@middy/core`, and runs test/support/sdk-floor-program.ts there
 * with `--preserve-symlinks`, so the package and lib-dynamodb resolve the floor versions, not this repository's.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { packedPackage, repoRoot } from '../support/packed.js';
import type { FloorReport } from '../support/sdk-floor-program.js';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The SDK packages the library part imports, each with its floor alias. */
const FLOORED = ['client-dynamodb', 'lib-dynamodb', 'util-dynamodb'] as const;
const floorOf = (name: string): string => (pkg.peerDependencies[`@aws-sdk/${name}`] ?? '').replace(/^\^/, '');

let project: string;

beforeAll(() => {
  const cache = join(repoRoot, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  project = mkdtempSync(join(cache, 'sdk-floor-'));
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, '@aws-sdk'), { recursive: true });
  mkdirSync(join(modules, '@middy'), { recursive: true });
  for (const name of FLOORED) symlinkSync(join(repoRoot, 'node_modules', `sdk-floor-${name}`), join(modules, '@aws-sdk', name));
  symlinkSync(join(repoRoot, 'node_modules', '@middy', 'core'), join(modules, '@middy', 'core'));
  symlinkSync(packedPackage(), join(modules, 'effectively-once'));
  writeFileSync(join(project, 'package.json'), '{ "name": "sdk-floor", "private": true, "type": "module" }\n');
  const source = readFileSync(join(repoRoot, 'test', 'support', 'sdk-floor-program.ts'), 'utf8');
  writeFileSync(join(project, 'program.mjs'), transformSync(source, { loader: 'ts', format: 'esm', target: 'node22' }).code);
}, 180_000);

afterAll(() => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

function runProgram(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--preserve-symlinks', '--preserve-symlinks-main', 'program.mjs'], {
      cwd: project,
      env: { PATH: process.env['PATH'] ?? '', DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), AWS_REGION: 'us-east-1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the AWS SDK floor of the peer range, on DynamoDB Local', () => {
  let report: FloorReport;

  beforeAll(async () => {
    const run = await runProgram();
    expect(run.stderr, 'the program wrote to stderr').toBe('');
    expect(run.code).toBe(0);
    report = JSON.parse(run.stdout) as FloorReport;
  }, 180_000);

  it('pins each floor alias to the floor of the documented peer range, the same for the three packages', () => {
    for (const name of FLOORED) expect(pkg.devDependencies[`sdk-floor-${name}`]).toBe(`npm:@aws-sdk/${name}@${floorOf(name)}`);
    expect(new Set(FLOORED.map(floorOf)).size).toBe(1);
  });

  it('runs the package on the floor versions: as the package resolves them, and as lib-dynamodb resolves its own', () => {
    const floor = floorOf('client-dynamodb');
    expect(report.versions).toEqual({
      'client-dynamodb': floor,
      'lib-dynamodb': floor,
      'util-dynamodb': floor,
      'client-dynamodb (lib-dynamodb)': floor,
      'util-dynamodb (lib-dynamodb)': floor,
    });
  });

  it('DynamoDBIdempotencyStore keeps the store contract (both release modes)', () => {
    expect(report.contract.cases).toBeGreaterThanOrEqual(20);
    expect(report.contract.failures).toEqual([]);
  });

  it("the README's claim handler: one effect per key, a copy and a redelivery acknowledged, batched and per-record requests", () => {
    expect(report.claim).toEqual({
      '256 MB': { effects: { a: 1, b: 1, c: 1 }, failed: 0, requests: ['batched', 'batched'] },
      '1024 MB': { effects: { a: 1, b: 1, c: 1 }, failed: 0, requests: ['per-record', 'per-record'] },
    });
  });

  it('a transaction with group commit applies each order once; the redelivered one is a duplicate', () => {
    expect(report.transaction).toEqual({ points: 40, failed: 0, duplicates: 1 });
  });

  it('transition() tells applied, already there and a conflict apart, with the item (ReturnValuesOnConditionCheckFailure)', () => {
    expect(report.transition).toEqual(['applied:PAID', 'already:PAID', 'conflict:PAID']);
  });
});
