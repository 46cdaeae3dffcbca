/**
 * The CLI as users run it: the bundle `npm run build` ships (scripts/build-cli.ts), started by Node as a
 * separate process through a symlink like the one npm puts in node_modules/.bin. It is built into a
 * temporary folder inside the project, so the AWS SDK resolves from node_modules as it does from a user's.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../../scripts/build-cli.js';
import { ManualClock } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';
import { completed, localEnv, writer } from './support.js';

/** An endpoint that is not this machine's and never answers (`.invalid` never resolves): the CLI fails before any request. */
const REMOTE = 'http://dynamodb.example.invalid:8000';
const remoteEnv = (): Record<string, string> => ({ ...localEnv(), DYNAMODB_ENDPOINT: REMOTE });

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const outDir = join(root, 'node_modules', '.cache', `cli-bin-${randomUUID().slice(0, 8)}`);
const bundle = join(outDir, 'cli', 'main.js');
const bin = join(outDir, '.bin', 'effectively-once');
let table: string;

function buildBin(): void {
  buildCli(bundle);
  // The package's own package.json says "type": "module"; under node_modules/ Node looks no further up.
  writeFileSync(join(outDir, 'package.json'), '{ "type": "module" }\n');
  mkdirSync(dirname(bin), { recursive: true });
  symlinkSync(join('..', 'cli', 'main.js'), bin);
}

beforeAll(async () => {
  buildBin();
  table = await freshTable(testDynamo().client, undefined, 'cli');
  await completed(writer(table, new ManualClock(Date.now())), 'payments', 'o-bin');
});

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

interface Exit {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

// An environment with nothing inherited, so no credentials or region leak in from the machine.
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const home = tmpdir();
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    AWS_CONFIG_FILE: join(home, `no-aws-config-${randomUUID()}`),
    AWS_SHARED_CREDENTIALS_FILE: join(home, `no-aws-credentials-${randomUUID()}`),
    AWS_EC2_METADATA_DISABLED: 'true',
    ...extra,
  };
}

function runBin(args: readonly string[], env: Record<string, string>): Promise<Exit> {
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { env, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      done({ code, stdout, stderr });
    });
  });
}

const SDK_NOTICE = 'NodeVersionSupportWarning';

describe('the effectively-once bin', () => {
  it('is declared in package.json, one executable file that keeps its shebang', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    expect(pkg.bin).toEqual({ 'effectively-once': './dist/cli/main.js' });
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(bundle).mode & 0o111).toBe(0o111);
    // One file: the library code it uses is bundled in, only packages and Node's modules are imported.
    const imported = [...readFileSync(bundle, 'utf8').matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1] ?? '');
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((specifier) => specifier.startsWith('.'))).toEqual([]);
  });

  it('prints its commands on --help, exit code 0', async () => {
    const run = await runBin(['--help'], cleanEnv({}));
    expect(run.code).toBe(0);
    const commands = [...run.stdout.matchAll(/^ {2}(\w+) /gm)].map((line) => line[1]);
    expect(commands).toEqual(['inspect', 'forget', 'stale', 'check', 'table']);
  });

  it('inspects a record in a separate process, exit code 0', async () => {
    const run = await runBin(['inspect', '--table', table, '--consumer', 'payments', '--key', 'o-bin', '--json'], cleanEnv(localEnv()));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 'payments#o-bin', matched: 'plain', record: { status: 'COMPLETED' } });
  });

  it("on a loopback endpoint with neither keys nor region, uses DynamoDB Local's (exit 0)", async () => {
    const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, AWS_REGION: _region, ...bare } = localEnv();
    const run = await runBin(['stale', '--table', table], cleanEnv(bare));
    expect(run).toMatchObject({ code: 0, stderr: '' });
  });

  it('without credentials says what to set, exit code 1', async () => {
    // A remote endpoint: on a loopback one the CLI stands in DynamoDB Local's keys.
    const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...noCredentials } = remoteEnv();
    const run = await runBin(['inspect', '--table', table, '--id', 'payments#o-bin'], cleanEnv(noCredentials));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no AWS credentials found. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE');
  });

  it('without a region says how to give one in one line, and nothing else (no AWS SDK Node-version notice), exit code 1', async () => {
    const { AWS_REGION: _region, ...noRegion } = remoteEnv();
    const run = await runBin(['stale', '--table', table], cleanEnv(noRegion));
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain(SDK_NOTICE);
    expect(run.stderr).toBe('effectively-once stale: no AWS region: pass --region or set AWS_REGION.\n');
  });

  it('exits 2 on a usage error', async () => {
    const run = await runBin(['forget', '--table', table], cleanEnv(localEnv()));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--consumer is required');
  });
});
