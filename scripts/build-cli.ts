/**
 * The operator CLI (cli/, outside the library's src/) as the package ships it: one ESM file, the bin
 * `dist/cli/main.js`. `npm run build` runs this after tsc has compiled src/; the bin test
 * (test/integration/cli/bin.test.ts) and the packed package (test/support/packed.ts) build it with the same
 * function, so what they run is what ships.
 *
 * The library files the CLI imports are bundled in; packages (the AWS SDK, redis) stay imports, resolved
 * from the user's node_modules like the library's own peer dependencies.
 */
import { chmodSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/** Where `npm run build` puts the bin: package.json's `bin`. */
export const CLI_OUTFILE = join(repoRoot, 'dist', 'cli', 'main.js');

/**
 * Bundles cli/main.ts into `outfile` and makes it executable. The folder of `outfile` is emptied first: it
 * holds the bin only (a build from before the CLI left src/ put one compiled file per source there).
 */
export function buildCli(outfile: string = CLI_OUTFILE): void {
  rmSync(dirname(outfile), { recursive: true, force: true });
  buildSync({
    entryPoints: [join(repoRoot, 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    // main.ts starts with the shebang: esbuild keeps a leading one as it is.
    logLevel: 'error',
  });
  chmodSync(outfile, 0o755);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) buildCli();
