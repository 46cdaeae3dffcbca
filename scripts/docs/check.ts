/**
 * `npm run docs:check`: builds the documentation site, serves it on a free local port and checks it in
 * headless Chromium, as a reader would meet it:
 *
 * - every page of the navigation and every API page loads (HTTP 200), hydrates, and logs no error;
 * - every internal link leads to a page, and every anchor to an element id on it (all pages are crawled);
 * - the local search finds the transactions guide for "group commit" (`--search`, `--search-page`);
 * - the API page of sqsIdempotency shows its TSDoc @example as code;
 * - the benchmarks page's charts read at the page's width: each one's smallest text renders at 11 px or more;
 * - screenshots of the home page, of that API page and of each benchmarks chart as rendered go to site/check/.
 *
 * Exits non-zero with the list of failures. Not part of `npm test`: a machine without a browser passes the
 * tests; this check installs Debian's chromium when it is missing and it runs as root (see chromium.ts).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { helpText, parseFlags, UsageError } from '../shared/flags.js';
import { buildSite } from './build.js';
import { ensureChromium, launchChromium } from './chromium.js';
import { crawl } from './crawl.js';
import { apiFolder, checkDir, root, siteDist, siteSrc } from './layout.js';
import { siteLink } from './pages.js';
import { chartsReadable, exampleOf, searchFinds, showsExample, type ProbeResult } from './probes.js';
import { resolveFile, serveStatic } from './serve.js';
import type { SiteManifest } from './site-config.js';
import type { BrowserContext } from 'playwright-core';

const cli = {
  usage: 'npm run docs:check -- [options]',
  helpCommand: 'npm run docs:check -- --help',
  summary: 'Builds the documentation site and checks it in headless Chromium: pages, links, anchors, search, API examples.',
  flags: {
    'no-build': { type: 'boolean', help: 'check the site already in site/dist (from `npm run docs`)' },
    search: { type: 'string', default: 'group commit', value: 'TEXT', help: 'what to type into the search box' },
    'search-page': { type: 'string', default: 'docs/transactions.md', value: 'FILE', help: 'the guide the search must find' },
    'api-example': { type: 'string', default: 'sqsIdempotency', value: 'NAME', help: 'the export whose API page must show its @example' },
    concurrency: { type: 'integer', default: 2, min: 1, max: 8, help: 'pages loaded at once' },
  },
} as const;

const started = Date.now();
const say = (text: string): void => {
  process.stdout.write(`[docs:check ${((Date.now() - started) / 1000).toFixed(1)} s] ${text}\n`);
};

function htmlUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.html'))
    .map((e) => relative(siteDist, join(e.parentPath, e.name)).split('\\').join('/'));
}

/** The URL paths of the navigation: the home page, each guide, the API's index (the sidebar lists the rest). */
function navigationPaths(manifest: SiteManifest): string[] {
  return ['/', ...manifest.guides.map((g) => `${siteLink(g.sitePath)}.html`.replace(/\/\.html$/, '/')), `/${apiFolder}/`];
}

async function run(values: {
  readonly search: string;
  readonly 'search-page': string;
  readonly 'api-example': string;
  readonly concurrency: number;
  readonly 'no-build': boolean;
}): Promise<string[]> {
  const chromiumPath = ensureChromium();
  say(`Chromium: ${chromiumPath}`);
  if (!values['no-build']) {
    say('building the site (npm run docs)');
    await buildSite();
  }
  const manifestFile = join(siteSrc, '.vitepress', 'manifest.json');
  if (!existsSync(manifestFile) || !existsSync(join(siteDist, 'index.html')))
    throw new Error('no site in site/dist: run `npm run docs` first, or drop --no-build');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as SiteManifest;
  const fileOf = (path: string): string | undefined => {
    const file = resolveFile(siteDist, path);
    return file === undefined ? undefined : relative(siteDist, file).split('\\').join('/');
  };
  const server = await serveStatic(siteDist);
  const browser = await launchChromium(chromiumPath);
  const failures: string[] = [];
  const outside: string[] = [];
  try {
    say(`serving site/dist at ${server.origin}`);
    // The site must be self-contained: a request elsewhere is refused and reported.
    await browser.context.route(
      (url) => url.origin !== server.origin,
      (route) => {
        outside.push(route.request().url());
        return route.abort();
      },
    );
    const nav = navigationPaths(manifest);
    const api = htmlUnder(join(siteDist, apiFolder)).map((f) => `/${f}`);
    say(`crawling ${nav.length} navigation pages, ${api.length} API pages and every page they link`);
    const result = await crawl({
      context: browser.context,
      origin: server.origin,
      start: [...nav, ...api],
      fileOf,
      concurrency: values.concurrency,
      progress: say,
    });
    for (const [file, visit] of result.visits) {
      if (visit.status !== 200) failures.push(`${file}: HTTP ${visit.status}`);
      for (const e of visit.errors) failures.push(`${file}: ${e}`);
    }
    const navFiles = nav.map((p) => fileOf(p) ?? p);
    for (const f of navFiles) if (result.visits.get(f)?.status !== 200) failures.push(`navigation page ${f} did not load`);
    say(`pages: ${result.visits.size} loaded (${nav.length} in the navigation, ${api.length} API pages)`);
    say(
      `links: ${result.links} internal links, ${result.targets} distinct targets (page or page#anchor): ${result.broken.length === 0 ? 'none broken' : `${result.broken.length} broken`}`,
    );
    failures.push(...result.broken.map((b) => `broken link ${b}`));

    const expected = values['search-page'];
    const guide = manifest.guides.find((g) => g.repoPath === expected);
    const searchPage = `${siteLink(guide?.sitePath ?? expected)}.html`;
    const search = await searchFinds(browser.context, server.origin, values.search, searchPage, guide !== undefined);
    report('search', search, failures);

    mkdirSync(checkDir, { recursive: true });
    const home = await browser.context.newPage();
    await home.goto(`${server.origin}/`, { waitUntil: 'load' });
    await home.waitForTimeout(500);
    const homeShot = join(checkDir, 'home.png');
    await home.screenshot({ path: homeShot });
    await home.close();

    const name = values['api-example'];
    const apiPage = `/${apiFolder}/effectively-once/functions/${name}.html`;
    const example = await showsExample(browser.context, `${server.origin}${apiPage}`, exampleOf(name));
    report(`API example (${apiPage})`, example, failures);
    const apiShot = join(checkDir, `api-${name}.png`);
    // The whole page in one window (a full-page shot would cut the fixed sidebar at the first screen).
    const height = (await example.page.evaluate('document.documentElement.scrollHeight')) as number;
    await example.page.setViewportSize({ width: 1280, height: Math.min(Math.max(height, 900), 4000) });
    await example.page.screenshot({ path: apiShot });
    await example.page.close();
    const chartShots = await checkCharts(browser.context, server.origin, manifest, failures);
    say(`screenshots: ${[homeShot, apiShot, ...chartShots].map((f) => relative(root, f)).join(', ')}`);
  } finally {
    await browser.close();
    await server.close();
  }
  failures.push(...[...new Set(outside)].map((u) => `request outside the site (refused): ${u}`));
  return failures;
}

/** The benchmarks page's charts: readable at the page's width (failures otherwise), each screenshot as rendered. */
async function checkCharts(context: BrowserContext, origin: string, manifest: SiteManifest, failures: string[]): Promise<string[]> {
  const guide = manifest.guides.find((g) => g.repoPath === 'docs/benchmarks.md');
  if (guide === undefined) {
    failures.push('docs/benchmarks.md is not in the site');
    return [];
  }
  const url = `${origin}${siteLink(guide.sitePath)}.html`;
  const charts = await chartsReadable(context, url);
  report(`charts (${siteLink(guide.sitePath)}.html)`, charts, failures);
  const shots: string[] = [];
  // The same images, in the same order, as the probe read: an SVG named benchmarks-*.
  for (const [i, chart] of charts.charts.entries()) {
    const shot = join(checkDir, `chart-${chart.file.replace(/\.[^.]*\.svg$|\.svg$/, '')}-${i}.png`);
    await charts.page.locator('.vp-doc img[src*="benchmarks-"][src$=".svg"]').nth(i).screenshot({ path: shot });
    shots.push(shot);
  }
  await charts.page.close();
  return shots;
}

function report(what: string, result: ProbeResult, failures: string[]): void {
  say(`${what}: ${result.status.toUpperCase()}: ${result.detail}`);
  if (result.status === 'failed') failures.push(`${what}: ${result.detail}`);
}

async function main(): Promise<number> {
  const parsed = parseFlags(cli, process.argv.slice(2));
  if (parsed.help) {
    process.stdout.write(helpText(cli));
    return 0;
  }
  const failures = await run(parsed.values);
  if (failures.length > 0) {
    process.stderr.write(`\ndocs:check FAILED (${failures.length}):\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
    return 1;
  }
  say('docs:check passed');
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      const message = error instanceof UsageError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`docs:check: ${message}\n`);
      process.exit(error instanceof UsageError ? 2 : 1);
    },
  );
}
