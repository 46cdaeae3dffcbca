/**
 * A fresh consumer project for the tests that replay docs/testing.md's
 * "Against DynamoDB Local" on the packed package, with no network: the
 * packages the doc's `npm install` commands name are linked from this
 * repository's node_modules (effectively-once itself is the unpacked
 * tarball), and the doc's `file=` blocks are written as they are.
 * test/integration/testing/docs-local-kit.test.ts (Vitest),
 * docs-local-kit-jest.test.ts (Jest) and docs-template-kit.test.ts (the
 * tables of a serverless.yml) build theirs with it.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packedPackage, repoRoot } from './packed.js';

/** The `## heading` section of docs/testing.md, without its heading. */
export const testingDocSection = (heading: string): string =>
  readFileSync(join(repoRoot, 'docs', 'testing.md'), 'utf8')
    .split(`\n## ${heading}\n`)[1]
    ?.split('\n## ')[0] ?? '';

/** docs/testing.md's "Against DynamoDB Local" section. */
export const localKitDoc = testingDocSection('Against DynamoDB Local');

/** The first ```ts block of the README's `### heading...` section (`Claim record`, `Transaction`, `State machine`), as it is. */
export const readmeExample = (heading: string): string =>
  fencedBlocks(readFileSync(join(repoRoot, 'README.md'), 'utf8').split(`\n### ${heading}`)[1] ?? '', 'ts')[0]?.body ?? '';

/** The README's claim record example: the doc's `handler.ts`, as it is. */
export const readmeHandler = (): string => readmeExample('Claim record');

/** Fenced blocks of `markdown` whose language is `lang`: the rest of the info string and the body. */
export function fencedBlocks(markdown: string, lang: string): { info: string; body: string }[] {
  return [...markdown.matchAll(/^```(\S+)([^\n]*)\n([\s\S]*?)^```$/gm)]
    .filter((m) => m[1] === lang)
    .map((m) => ({ info: m[2] ?? '', body: m[3] ?? '' }));
}

/** The lines of `markdown`'s ```sh blocks. */
export const shellLines = (markdown: string): string[] => fencedBlocks(markdown, 'sh').flatMap((b) => b.body.split('\n'));

/** Package names that the `npm install` commands among `commands` install. */
export function installedBy(commands: readonly string[]): string[] {
  return commands
    .filter((line) => line.startsWith('npm install '))
    .flatMap((line) => line.split(/\s+/).slice(2))
    .filter((word) => word !== '' && !word.startsWith('-'));
}

/** What `npm install` does with a package's `bin`: a relative symlink in node_modules/.bin per command. */
function linkBins(modules: string, name: string): void {
  const pkg = JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const bins = typeof pkg.bin === 'string' ? { [name.split('/').pop() ?? name]: pkg.bin } : (pkg.bin ?? {});
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const [command, file] of Object.entries(bins)) symlinkSync(join('..', name, file), join(modules, '.bin', command));
}

/**
 * A new ES module project in the OS temp folder with `packages` installed
 * (as `npm install` would, `bins` also in node_modules/.bin), the README
 * examples the doc names (`handlers`) and the `file=` blocks of `markdown`
 * in languages `langs` written into it.
 */
export function consumerProject(options: {
  readonly prefix: string;
  readonly packages: readonly string[];
  readonly bins: readonly string[];
  readonly markdown: string;
  readonly langs: readonly string[];
  /** Files written before the doc's blocks, by name. Default: the README's claim example as `handler.ts`. */
  readonly handlers?: Readonly<Record<string, string>>;
}): string {
  const project = mkdtempSync(join(tmpdir(), options.prefix));
  const modules = join(project, 'node_modules');
  for (const name of options.packages) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    if (name === 'effectively-once') cpSync(packedPackage(), join(modules, name), { recursive: true });
    else symlinkSync(join(repoRoot, 'node_modules', name), join(modules, name));
  }
  for (const name of options.bins) linkBins(modules, name);
  writeFileSync(join(project, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  for (const [name, source] of Object.entries(options.handlers ?? { 'handler.ts': readmeHandler() }))
    writeFileSync(join(project, name), source);
  for (const lang of options.langs) {
    for (const { info, body } of fencedBlocks(options.markdown, lang)) {
      const file = /file=(\S+)/.exec(info)?.[1];
      if (file !== undefined) writeFileSync(join(project, file), body);
    }
  }
  return project;
}

/**
 * Runs `cmd` in `cwd` with nothing inherited but `PATH` (nothing that would
 * point the SDK somewhere, or make an inner vitest think it is nested):
 * `HOME` is `cwd`, so whatever the run starts can be told apart by it. After
 * 50 s its whole process group is killed: `npx` under `sh` is three processes
 * deep, and a runner left waiting would keep its DynamoDB Local too.
 */
export function runIn(
  cwd: string,
  cmd: string,
  args: readonly string[],
  options: { readonly path?: string; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<{ code: number; output: string }> {
  const env = { PATH: options.path ?? process.env['PATH'] ?? '', HOME: cwd, NO_COLOR: '1', CI: '1', ...options.env };
  return new Promise((resolve) => {
    const child = spawn(cmd, [...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer): void => void (output += chunk.toString());
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    const timer = setTimeout(killGroup, 50_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: 1, output: `${output}${err.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output });
    });
  });
}
