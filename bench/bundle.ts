/**
 * Where the bench's esbuild bundles go, and the bundling of a script that
 * runs in a process of its own (a handler's worker, the cold-start runner),
 * as a deployed function would be bundled.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildOptions, build } from 'esbuild';

/** Where bundles go: under node_modules, so a child process resolves the external SDK like a deployed function would. */
export function outDir(root: string): string {
  const dir = join(root, 'node_modules', '.cache', 'effectively-once-bench');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A bundled CommonJS dependency may call require(): this gives the ES module one. */
const REQUIRE_BANNER =
  "import { createRequire as __eoCreateRequire } from 'node:module'; const require = __eoCreateRequire(import.meta.url);";

/**
 * Bundles `bench/<entry>` (a path under bench/, `.ts`) into `<name>.mjs`
 * beside the other bundles; not minified, so a stack trace reads. With
 * `sdkExternal` the AWS SDK is left to the runtime, as Lambda provides it.
 */
export async function bundleScript(
  root: string,
  entry: string,
  name: string,
  options: { readonly sdkExternal?: boolean } = {},
): Promise<string> {
  const file = join(outDir(root), `${name}.mjs`);
  const external: BuildOptions = options.sdkExternal === true ? { external: ['@aws-sdk/*'], banner: { js: REQUIRE_BANNER } } : {};
  await build({
    entryPoints: [join(root, 'bench', entry)],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    absWorkingDir: root,
    logLevel: 'silent',
    ...external,
  });
  return file;
}
