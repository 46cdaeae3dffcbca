/**
 * `npm run docs`: the documentation site, built into site/dist (git-ignored).
 *
 * 1. Lays out site/src: README.md as the home page (index.md), docs/ copied as it is. The navigation is
 *    generated from the docs/*.md present now (each page's title is its first `# ` heading), so a guide
 *    added, renamed or removed needs no change here.
 * 2. The API reference from the TSDoc of the package's entry points (TypeDoc, Markdown, one page per export).
 * 3. VitePress builds the static site, with local search. A link to a missing page fails the build;
 *    `npm run docs:check` then opens every page in Chromium and checks links and anchors too.
 *
 * `--sources` stops after step 2: `npm run docs:dev` then serves site/src with VitePress's dev server.
 */
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DefaultTheme } from 'vitepress';
import { apiFolder, docsDir, root, siteDist, siteSrc } from './layout.js';
import { HOME, guides, repositoryUrl } from './pages.js';
import type { SiteManifest } from './site-config.js';
import { buildApiReference } from './typedoc.js';

/** What was built. */
export interface BuiltSite {
  readonly guides: number;
  readonly apiPages: number;
  readonly seconds: number;
}

const started = Date.now();
const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const step = (text: string): void => {
  process.stdout.write(`[docs ${elapsed()}] ${text}\n`);
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'));
}

function countPages(dir: string): number {
  return filesUnder(dir).filter((f) => f.endsWith('.md')).length;
}

/** site/src from README.md and docs/; returns the guides for the manifest. */
function layOutSources(): Pick<SiteManifest, 'guides' | 'assets'> {
  rmSync(siteSrc, { recursive: true, force: true });
  rmSync(siteDist, { recursive: true, force: true });
  mkdirSync(join(siteSrc, 'docs'), { recursive: true });
  const readme = readFileSync(join(root, HOME.repoPath), 'utf8');
  writeFileSync(join(siteSrc, HOME.sitePath), readme);
  const files = filesUnder(docsDir);
  const markdown = new Map(
    files.filter((f) => f.endsWith('.md') && !f.includes('/')).map((f) => [f, readFileSync(join(docsDir, f), 'utf8')]),
  );
  const found = guides(markdown, readme);
  for (const g of found) writeFileSync(join(siteSrc, g.sitePath), markdown.get(g.repoPath.slice('docs/'.length)) ?? '');
  const assets = files.filter((f) => !markdown.has(f)).map((f) => `docs/${f}`);
  for (const a of assets) {
    mkdirSync(dirname(join(siteSrc, a)), { recursive: true });
    cpSync(join(root, a), join(siteSrc, a));
  }
  return { guides: found, assets };
}

function writeVitepressConfig(manifest: SiteManifest): void {
  const dir = join(siteSrc, '.vitepress');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const config = relative(dir, fileURLToPath(new URL('./site-config.ts', import.meta.url)))
    .split('\\')
    .join('/');
  writeFileSync(
    join(dir, 'config.mts'),
    [
      '// Written by scripts/docs/build.ts: the configuration is scripts/docs/site-config.ts.',
      "import manifest from './manifest.json';",
      `import { createConfig } from '${config}';`,
      'export default createConfig(manifest);',
      '',
    ].join('\n'),
  );
}

/** `sourcesOnly`: lay out site/src and the API reference without building (for `vitepress dev`, `npm run docs:dev`). */
export async function buildSite(sourcesOnly = false): Promise<BuiltSite> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; description: string; repository?: unknown };
  step('laying out site/src from README.md and docs/');
  const { guides: found, assets } = layOutSources();
  step(`${found.length} guides: ${found.map((g) => g.repoPath).join(', ')}`);
  step('API reference: TypeDoc over the entry points (about a minute on a busy machine)');
  const api = await buildApiReference();
  const apiPages = countPages(join(siteSrc, apiFolder));
  step(`API reference: ${apiPages} pages${api.warnings > 0 ? `, ${api.warnings} TypeDoc warnings (above)` : ''}`);
  const apiSidebar = JSON.parse(readFileSync(api.sidebarFile, 'utf8')) as DefaultTheme.SidebarItem[];
  writeVitepressConfig({
    title: pkg.name,
    description: pkg.description,
    outDir: siteDist,
    guides: found,
    assets,
    apiFolder,
    apiSidebar,
    repoUrl: repositoryUrl(pkg.repository),
  });
  if (sourcesOnly) {
    step('site/src is ready (a change under docs/ or src/ needs this command again)');
    return { guides: found.length, apiPages, seconds: (Date.now() - started) / 1000 };
  }
  step('VitePress: building the static site and its search index');
  const { build } = await import('vitepress');
  await build(siteSrc);
  step(
    `site built: ${relative(process.cwd(), siteDist) || siteDist}/index.html (${found.length + 1} guide pages with the home page, ${apiPages} API pages)`,
  );
  return { guides: found.length, apiPages, seconds: (Date.now() - started) / 1000 };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildSite(process.argv.includes('--sources')).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`docs: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
