/**
 * The crawl of the browser check: every start page and every internal page linked from one is loaded in
 * Chromium; each must answer 200, hydrate, and log no error. Then every internal link is checked: its page
 * exists (and loaded), and its anchor, if any, is the id of an element on that page.
 *
 * The browser-side code is passed as strings: the scripts' tsconfig has no DOM types.
 */
import type { BrowserContext, Page } from 'playwright-core';

/** One loaded page. */
export interface Visit {
  readonly status: number;
  readonly errors: readonly string[];
  readonly ids: ReadonlySet<string>;
}

/** What the crawl found. */
export interface CrawlResult {
  /** By file (`docs/sqs.html`). */
  readonly visits: ReadonlyMap<string, Visit>;
  /** Unique internal link targets checked (page and anchor). */
  readonly targets: number;
  /** Internal links seen, counting each page's navigation. */
  readonly links: number;
  /** A line per broken link target, with the pages that link it. */
  readonly broken: readonly string[];
}

export interface CrawlOptions {
  readonly context: BrowserContext;
  readonly origin: string;
  /** URL paths to load even if nothing links them (`/`, `/docs/sqs.html`). */
  readonly start: readonly string[];
  /** The served file of a URL path, as the server resolves it; undefined for a 404. */
  readonly fileOf: (urlPath: string) => string | undefined;
  readonly concurrency: number;
  readonly progress: (text: string) => void;
}

interface Found {
  readonly ids: readonly string[];
  readonly links: readonly string[];
}

interface Loaded extends Visit {
  readonly links: readonly string[];
}

const HYDRATED = `(() => { const app = document.querySelector('#app'); return app !== null && app.__vue_app__ !== undefined; })()`;
const SETTLE = 'new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)))';
const FOUND = `(() => ({
  ids: [...document.querySelectorAll('[id]')].map((e) => e.id).concat([...document.querySelectorAll('a[name]')].map((a) => a.name)),
  links: [...document.querySelectorAll('a[href]')].map((a) => a.href),
}))()`;

/** Records what goes wrong on a page: console errors, uncaught exceptions, failed or refused requests. */
function watch(page: Page, origin: string): { errors: string[] } {
  const sink = { errors: [] as string[] };
  const errors = { push: (e: string) => sink.errors.push(e) };
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => {
    const failure = r.failure()?.errorText ?? 'failed';
    // A navigation cancels the previous page's prefetches: that is not the site's fault.
    if (failure !== 'net::ERR_ABORTED' || !r.url().startsWith(origin)) errors.push(`request ${r.url()}: ${failure}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && r.request().resourceType() !== 'document') errors.push(`request ${r.url()}: HTTP ${r.status()}`);
  });
  return sink;
}

/** Loads `path` in `page` (a worker's tab, reused: a new tab per page costs more than the page). */
async function load(page: Page, sink: { errors: string[] }, origin: string, path: string): Promise<Loaded> {
  const errors: string[] = [];
  sink.errors = errors;
  try {
    const response = await page.goto(origin + path, { waitUntil: 'load', timeout: 60_000 });
    const status = response?.status() ?? 0;
    await page.waitForFunction(HYDRATED, undefined, { timeout: 30_000 }).catch(() => errors.push('the page did not hydrate in 30 s'));
    await page.evaluate(SETTLE);
    const found = (await page.evaluate(FOUND)) as Found;
    return { status, errors, ids: new Set(found.ids), links: found.links };
  } catch (error) {
    errors.push(`load: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    return { status: 0, errors, ids: new Set<string>(), links: [] };
  }
}

export async function crawl(options: CrawlOptions): Promise<CrawlResult> {
  const { context, origin, fileOf } = options;
  const visits = new Map<string, Visit>();
  /** Target (`file#anchor`, or `file` with no anchor) -> the pages linking it (a few, for the report). */
  const targets = new Map<string, Set<string>>();
  const queue: string[] = [];
  const queued = new Set<string>();
  let links = 0;
  /** A page by its file (`docs/sqs.html`), or by its path without the slash when no file serves it. */
  const keyOf = (path: string): string => fileOf(path) ?? path.replace(/^\//, '');
  const enqueue = (path: string): void => {
    const file = fileOf(path);
    const key = keyOf(path);
    if (queued.has(key) || (file !== undefined && !file.endsWith('.html'))) return;
    queued.add(key);
    queue.push(path);
  };
  for (const path of options.start) enqueue(path);
  const record = (path: string, loaded: Loaded): void => {
    // A page that is not there is one failure (its status), not also its 404 page's console line and links.
    const ok = loaded.status === 200;
    visits.set(keyOf(path), { status: loaded.status, errors: ok ? loaded.errors : [], ids: loaded.ids });
    for (const href of ok ? loaded.links : []) {
      const url = new URL(href);
      if (url.origin !== origin) continue;
      links += 1;
      const target = `${keyOf(url.pathname)}${url.hash.length > 1 ? url.hash : ''}`;
      const from = targets.get(target) ?? new Set<string>();
      if (from.size < 3) from.add(path);
      targets.set(target, from);
      enqueue(url.pathname);
    }
    if (visits.size % 25 === 0) options.progress(`${visits.size} pages loaded, ${queue.length} queued`);
  };
  const worker = async (): Promise<void> => {
    const page = await context.newPage();
    const sink = watch(page, origin);
    try {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) record(path, await load(page, sink, origin, path));
    } finally {
      await page.close();
    }
  };
  // Workers share the queue; one that finds it empty while another is still loading stops, the last one drains it.
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  while (queue.length > 0) await worker();
  return { visits, targets: targets.size, links, broken: brokenTargets(targets, visits, fileOf) };
}

function brokenTargets(
  targets: ReadonlyMap<string, ReadonlySet<string>>,
  visits: ReadonlyMap<string, Visit>,
  fileOf: CrawlOptions['fileOf'],
): string[] {
  const broken: string[] = [];
  for (const [target, from] of targets) {
    const hashAt = target.indexOf('#');
    const file = hashAt === -1 ? target : target.slice(0, hashAt);
    const anchor = hashAt === -1 ? undefined : decodeURIComponent(target.slice(hashAt + 1));
    const visit = visits.get(file);
    const linkedFrom = `(linked from ${[...from].join(', ')})`;
    if (visit === undefined && fileOf(`/${file}`) === undefined) broken.push(`${target}: no such page ${linkedFrom}`);
    else if (visit !== undefined && visit.status !== 200) broken.push(`${target}: HTTP ${visit.status} ${linkedFrom}`);
    else if (anchor !== undefined && visit !== undefined && !visit.ids.has(anchor))
      broken.push(`${target}: no element with id "${anchor}" ${linkedFrom}`);
  }
  return broken.sort();
}
