/**
 * The package as `npm pack` makes it, for the tests that install it in a
 * fresh project: what `npm run build` makes (src/ compiled with
 * tsconfig.build.json, the CLI bundled by scripts/build-cli.ts) in a staging
 * folder (not the worktree's dist/, which other runs may be reading), packed with
 * `npm pack --ignore-scripts` (so `files` decides what ships) and unpacked.
 * Cached in the OS temp folder under a hash of everything that goes in, so
 * test files and reruns share one build.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../../scripts/build-cli.js';
import { walk } from './doc-examples.js';

export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const SHIPPED = ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE'] as const;

function inputsHash(): string {
  const hash = createHash('sha256');
  const files = [...SHIPPED, 'tsconfig.json', 'tsconfig.build.json', 'scripts/build-cli.ts'].map((f) => join(repoRoot, f));
  const sources = [...walk(join(repoRoot, 'src'), '.ts'), ...walk(join(repoRoot, 'cli'), '.ts')];
  for (const file of [...files, ...sources]) hash.update(file).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

const PREFIX = 'effectively-once-pack-';
const DAY_MS = 86_400_000;

/** Packs of other sources, a day old: each edit of src/ leaves one (another checkout may still use a newer one). */
function pruneOldPacks(keep: string): void {
  for (const name of readdirSync(tmpdir())) {
    const path = join(tmpdir(), name);
    if (!name.startsWith(PREFIX) || path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > DAY_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
  }
}

/** The unpacked package folder (what `npm install <tarball>` puts in node_modules/effectively-once). */
export function packedPackage(): string {
  const cache = join(tmpdir(), `${PREFIX}${inputsHash()}`);
  const unpacked = join(cache, 'package');
  pruneOldPacks(cache);
  if (existsSync(join(unpacked, 'package.json'))) return unpacked;
  const staging = mkdtempSync(join(tmpdir(), 'effectively-once-stage-'));
  try {
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    execFileSync(process.execPath, [tsc, '-p', join(repoRoot, 'tsconfig.build.json'), '--outDir', join(staging, 'dist')], {
      stdio: 'pipe',
    });
    buildCli(join(staging, 'dist', 'cli', 'main.js'));
    for (const file of SHIPPED) copyFileSync(join(repoRoot, file), join(staging, file));
    const out = mkdtempSync(join(tmpdir(), 'effectively-once-packing-'));
    const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out], {
      cwd: staging,
      encoding: 'utf8',
    }).trim();
    execFileSync('tar', ['xzf', join(out, tarball), '-C', out]);
    try {
      renameSync(out, cache);
    } catch {
      rmSync(out, { recursive: true, force: true }); // another test file packed the same inputs first
    }
    return unpacked;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
