/**
 * What the browser check asserts beyond the crawl: the local search finds a guide, an API page shows its
 * TSDoc example as code, and the screenshots a person looks at.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import ts from 'typescript';
import { root } from './layout.js';

export type ProbeStatus = 'passed' | 'failed' | 'pending';

export interface ProbeResult {
  readonly status: ProbeStatus;
  readonly detail: string;
}

const HYDRATED = `(() => { const app = document.querySelector('#app'); return app !== null && app.__vue_app__ !== undefined; })()`;

const RESULT_LINKS = `[...document.querySelectorAll('.VPLocalSearchBox .results a.result')].map((a) => a.getAttribute('href') ?? '')`;

async function open(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
  await page.waitForFunction(HYDRATED, undefined, { timeout: 30_000 });
  return page;
}

/**
 * Types `query` into the search box of the home page and looks for a result on `expectedPage`
 * (`/docs/transactions.html`). `pending` when that guide is not in the site (yet): the results are reported.
 */
export async function searchFinds(
  context: BrowserContext,
  origin: string,
  query: string,
  expectedPage: string,
  pageExists: boolean,
): Promise<ProbeResult> {
  const page = await open(context, `${origin}/`);
  try {
    await page.locator('.VPNavBarSearch button').first().click();
    const input = page.locator('#localsearch-input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.pressSequentially(query, { delay: 20 });
    const results = page.locator('.VPLocalSearchBox .results a.result');
    await results
      .first()
      .waitFor({ timeout: 10_000 })
      .catch(() => undefined);
    await page.waitForTimeout(300);
    const raw = (await page.evaluate(RESULT_LINKS)) as string[];
    const hrefs = raw.map((h) => {
      const url = new URL(h, origin);
      return decodeURI(url.pathname) + url.hash;
    });
    const shown = hrefs.slice(0, 5).join(', ') || 'no results';
    if (!pageExists) return { status: 'pending', detail: `${expectedPage} is not in the site yet; "${query}" found: ${shown}` };
    const hit = hrefs.find((h) => h.startsWith(`${expectedPage}#`) || h === expectedPage);
    if (hit === undefined) return { status: 'failed', detail: `"${query}" found no result on ${expectedPage}; it found: ${shown}` };
    return { status: 'passed', detail: `"${query}" found ${hit} (result ${hrefs.indexOf(hit) + 1} of ${hrefs.length})` };
  } finally {
    await page.close();
  }
}

/** The code of the first @example of `name`, exported from src/index.ts, read from the comment in its source file. */
export function exampleOf(name: string, entry = 'src/index.ts'): string[] {
  const index = ts.createSourceFile(entry, readFileSync(join(root, entry), 'utf8'), ts.ScriptTarget.Latest);
  let from: string | undefined;
  for (const s of index.statements) {
    if (!ts.isExportDeclaration(s) || s.moduleSpecifier === undefined || !ts.isStringLiteral(s.moduleSpecifier)) continue;
    if (s.exportClause !== undefined && ts.isNamedExports(s.exportClause) && s.exportClause.elements.some((e) => e.name.text === name)) {
      from = s.moduleSpecifier.text;
    }
  }
  if (from === undefined) throw new Error(`${entry} does not export ${name}`);
  const file = join(root, 'src', from.replace(/^\.\//, '').replace(/\.js$/, '.ts'));
  const text = readFileSync(file, 'utf8');
  const at = text.search(new RegExp(`export (?:async )?(?:function|const|class) ${name}\\b`));
  const comment = text.slice(0, at).lastIndexOf('/**');
  const block = /@example\s*\n\s*\*\s*```[^\n]*\n([\s\S]*?)\n\s*\*\s*```/.exec(text.slice(comment, at));
  if (at === -1 || comment === -1 || block?.[1] === undefined) throw new Error(`no fenced @example on ${name} in ${file}`);
  return block[1]
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, '').trim())
    .filter((l) => l !== '');
}

/** The page shows the example as code: one code block holds every line of it. */
export async function showsExample(
  context: BrowserContext,
  url: string,
  example: readonly string[],
): Promise<ProbeResult & { page: Page }> {
  const page = await open(context, url);
  const blocks = await page.locator('.vp-doc div[class*="language-"] pre code').allInnerTexts();
  const lines = blocks.map((b) => new Set(b.split('\n').map((l) => l.trim())));
  const best = lines.map((set) => example.filter((l) => !set.has(l))).sort((a, b) => a.length - b.length)[0];
  if (best === undefined) return { page, status: 'failed', detail: `no code block on ${url}` };
  if (best.length > 0)
    return { page, status: 'failed', detail: `no code block holds the @example; closest one lacks: ${best.slice(0, 3).join(' | ')}` };
  return {
    page,
    status: 'passed',
    detail: `a code block holds all ${example.length} lines of the @example (of ${blocks.length} code blocks)`,
  };
}

/** The smallest chart text a reader is asked to read at the page's width, px. */
export const MIN_CHART_TEXT_PX = 11;

/** What the page shows of one chart: its name, the width it renders at, and its smallest text as rendered. */
export interface ChartOnPage {
  readonly file: string;
  readonly renderedWidth: number;
  readonly naturalWidth: number;
  /** The SVG's smallest font size × rendered width / natural width. */
  readonly smallestTextPx: number;
}

/**
 * Reads each chart of the page (an `<img>` of an SVG whose name starts with `benchmarks-`) as the reader's
 * browser draws it: the width the page gives it, the SVG's own width and the smallest `font-size` in it.
 * An SVG drawn narrower than its own width is scaled down, its text with it.
 */
const CHARTS_ON_PAGE = `(async () => {
  const images = [...document.querySelectorAll('.vp-doc img')].filter((img) => /\\/benchmarks-[^/]*\\.svg$/.test(new URL(img.currentSrc || img.src).pathname));
  return Promise.all(images.map(async (img) => {
    const text = await (await fetch(img.currentSrc || img.src)).text();
    const sizes = [...text.matchAll(/font-size="([0-9.]+)px"/g)].map((m) => Number(m[1]));
    const naturalWidth = Number((/<svg[^>]* width="([0-9.]+)"/.exec(text) || [])[1]);
    const renderedWidth = img.getBoundingClientRect().width;
    return {
      file: new URL(img.currentSrc || img.src).pathname.split('/').pop(),
      renderedWidth,
      naturalWidth,
      smallestTextPx: (sizes.length === 0 ? NaN : Math.min(...sizes)) * renderedWidth / naturalWidth,
    };
  }));
})()`;

/**
 * The benchmarks page's charts are readable where they stand: each one's smallest text renders at
 * {@link MIN_CHART_TEXT_PX} or more at the page's width. The page stays open for its screenshot.
 */
export async function chartsReadable(context: BrowserContext, url: string): Promise<ProbeResult & { page: Page; charts: ChartOnPage[] }> {
  const page = await open(context, url);
  for (const img of await page.locator('.vp-doc img').all()) await img.scrollIntoViewIfNeeded();
  await page.waitForFunction(`[...document.querySelectorAll('.vp-doc img')].every((img) => img.complete)`, undefined, { timeout: 30_000 });
  const charts = (await page.evaluate(CHARTS_ON_PAGE)) as ChartOnPage[];
  if (charts.length === 0) return { page, charts, status: 'failed', detail: `no benchmarks-*.svg chart on ${url}` };
  const shown = (c: ChartOnPage) => `${c.file} ${c.renderedWidth.toFixed(0)} px wide, smallest text ${c.smallestTextPx.toFixed(1)} px`;
  const small = charts.filter((c) => !(c.smallestTextPx >= MIN_CHART_TEXT_PX));
  if (small.length > 0)
    return { page, charts, status: 'failed', detail: `text under ${MIN_CHART_TEXT_PX} px as rendered: ${small.map(shown).join('; ')}` };
  return { page, charts, status: 'passed', detail: charts.map(shown).join('; ') };
}
