/**
 * Running `serverless package` and reading the CloudFormation template it
 * writes, for assertions on the deployable service without an AWS account.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** One resource of a template. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DependsOn?: string | string[];
}

/** The parts of a template the tests read. */
export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
}

const run = promisify(execFile);

/** Path of the osls CLI installed in node_modules (provides `serverless`). */
export function serverlessBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('osls/package.json')), 'bin', 'serverless.js');
}

/**
 * Runs `serverless package --package <outDir>` in `serviceDir` and returns
 * the update-stack template (`args`: more options, e.g. `--config`).
 * Offline: telemetry and notifications are off, and dummy credentials keep
 * any AWS profile of the developer out of it.
 */
export async function serverlessPackage(serviceDir: string, outDir: string, args: readonly string[] = []): Promise<CfnTemplate> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    AWS_ACCESS_KEY_ID: 'package-test',
    AWS_SECRET_ACCESS_KEY: 'package-test',
  };
  delete env['AWS_PROFILE'];
  delete env['AWS_SESSION_TOKEN'];
  try {
    await run(process.execPath, [serverlessBin(), 'package', '--package', outDir, ...args], {
      cwd: serviceDir,
      env,
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`serverless package failed:\n${stdout}\n${stderr}`, { cause: err });
  }
  return JSON.parse(await readFile(join(outDir, 'cloudformation-template-update-stack.json'), 'utf8')) as CfnTemplate;
}

/** Logical ids of the template's resources of `type`. */
export function idsOfType(template: CfnTemplate, type: string): string[] {
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id);
}

/** The resource `id`, failing clearly when absent. */
export function resource(template: CfnTemplate, id: string): CfnResource & { Properties: Record<string, unknown> } {
  const found = template.Resources[id];
  if (found === undefined) throw new Error(`The template has no resource "${id}".`);
  return { ...found, Properties: found.Properties ?? {} };
}

/** The logical id in `{ 'Fn::GetAtt': [id, attribute] }` or `{ Ref: id }`, else undefined. */
export function targetId(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const getAtt = v['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  return typeof v['Ref'] === 'string' ? v['Ref'] : undefined;
}

/** Every logical id an intrinsic value refers to (Ref, GetAtt, Sub `${Id}`/`${Id.Attr}`, nested Join). */
export function referencedIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencedIds);
  if (typeof value !== 'object' || value === null) return [];
  const direct = targetId(value);
  if (direct !== undefined) return [direct];
  const sub = (value as Record<string, unknown>)['Fn::Sub'];
  if (typeof sub === 'string') return [...sub.matchAll(/\$\{([A-Za-z0-9]+)(?:\.[A-Za-z]+)?\}/g)].map((m) => m[1] ?? '');
  return Object.values(value).flatMap(referencedIds);
}

/** One IAM policy statement, normalised to arrays. */
export interface Statement {
  readonly role: string;
  readonly actions: string[];
  readonly resources: unknown[];
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** Every Allow statement of the inline policies of every `AWS::IAM::Role`. */
export function roleStatements(template: CfnTemplate): Statement[] {
  return idsOfType(template, 'AWS::IAM::Role').flatMap((role) => {
    const policies = asArray(resource(template, role).Properties['Policies']) as Array<{ PolicyDocument?: { Statement?: unknown } }>;
    return policies.flatMap((p) =>
      (asArray(p.PolicyDocument?.Statement) as Array<Record<string, unknown>>)
        .filter((s) => s['Effect'] === 'Allow')
        .map((s) => ({ role, actions: asArray(s['Action']).map(String), resources: asArray(s['Resource']) })),
    );
  });
}
