/**
 * The documentation's links hold: every relative link and `#anchor` in
 * README.md, CONTRIBUTING.md and docs/**.md points to a file that exists
 * and, for a Markdown target, to a heading it has (GitHub's slugs), so a
 * renamed page or heading cannot leave a dead link behind. Also: every page
 * under docs/ is reachable from the README, and each starts with a summary
 * paragraph and links back to the README (the README stays short because
 * the pages carry the detail; a page nobody can reach is a lost page).
 *
 * Links inside code (fenced blocks, `inline code`) are not links. Absolute
 * URLs (https:, mailto:) are not checked: no network in tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { walk } from '../support/doc-examples.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const README = join(root, 'README.md');
const pages = [README, join(root, 'CONTRIBUTING.md'), ...walk(join(root, 'docs'), '.md')].filter((p) => existsSync(p));

interface Link {
  readonly from: string;
  readonly line: number;
  readonly target: string;
}

/** The lines of `text` outside fenced code blocks (CommonMark fences: same character, at least as long to close). */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split(/\r?\n/).forEach((line, i) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && m !== null) fence = m[1];
    else if (fence !== undefined && m !== null && m[1]?.[0] === fence[0] && (m[1]?.length ?? 0) >= fence.length && line.trim() === m[1])
      fence = undefined;
    else if (fence === undefined) out.push({ line: i + 1, text: line });
  });
  return out;
}

const withoutCodeSpans = (line: string): string => line.replace(/(`+)[^`]*?\1/g, '');

/** GitHub's heading anchor: the rendered text, lower-cased, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*]/g, '') // code spans and emphasis markers
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

const anchorsByFile = new Map<string, Set<string>>();

/** Every anchor a Markdown file offers: its headings' slugs (repeats get -1, -2, ...) and explicit `<a id>`/`<a name>`. */
function anchors(path: string): Set<string> {
  const known = anchorsByFile.get(path);
  if (known !== undefined) return known;
  const found = new Set<string>();
  anchorsByFile.set(path, found);
  const seen = new Map<string, number>();
  for (const { text } of proseLines(readFileSync(path, 'utf8'))) {
    const h = /^\s{0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/.exec(text);
    if (h !== null) {
      const base = slug(h[1] ?? '');
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      found.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(a[1] ?? '');
  }
  return found;
}

function links(path: string): Link[] {
  const out: Link[] = [];
  for (const { line, text } of proseLines(readFileSync(path, 'utf8'))) {
    const prose = withoutCodeSpans(text);
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ from: path, line, target: m[1] ?? '' });
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s.*)?$/.exec(prose);
    if (def !== null) out.push({ from: path, line, target: def[1] ?? '' });
  }
  return out;
}

const external = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** The file a relative link points at, and its anchor. */
function resolveLink(link: Link): { file: string; anchor: string | undefined } {
  const hash = link.target.indexOf('#');
  const path = hash === -1 ? link.target : link.target.slice(0, hash);
  const anchor = hash === -1 ? undefined : decodeURIComponent(link.target.slice(hash + 1));
  return { file: path === '' ? link.from : resolve(dirname(link.from), decodeURIComponent(path)), anchor };
}

function broken(link: Link): string | undefined {
  if (external(link.target)) return undefined;
  const { file, anchor } = resolveLink(link);
  const where = `${relative(root, link.from)}:${link.line} (${link.target})`;
  if (!existsSync(file)) return `${where}: no file ${relative(root, file)}`;
  if (anchor === undefined || anchor === '' || !file.endsWith('.md')) return undefined;
  return anchors(file).has(anchor) ? undefined : `${where}: ${relative(root, file)} has no heading #${anchor}`;
}

/** Markdown pages reachable from the README through relative links. */
function reachable(): Set<string> {
  const seen = new Set([README]);
  const queue = [README];
  for (let page = queue.shift(); page !== undefined; page = queue.shift()) {
    for (const link of links(page)) {
      if (external(link.target)) continue;
      const { file } = resolveLink(link);
      if (file.endsWith('.md') && existsSync(file) && !seen.has(file)) {
        seen.add(file);
        queue.push(file);
      }
    }
  }
  return seen;
}

describe('documentation links', () => {
  it('computes GitHub heading slugs', () => {
    expect(slug('Plain functions: `idempotent(fn)`')).toBe('plain-functions-idempotentfn');
    expect(slug('Group commit (SQS, the default)')).toBe('group-commit-sqs-the-default');
    expect(slug('The local run: `npm start`')).toBe('the-local-run-npm-start');
    expect(slug('serverless.yml')).toBe('serverlessyml');
    expect(slug('Middlewares between `sqsIdempotency` and the handler')).toBe('middlewares-between-sqsidempotency-and-the-handler');
    expect(slug("Pipelined claims (`claims: 'pipelined'`)")).toBe('pipelined-claims-claims-pipelined');
    expect(slug('A → B, **bold** [link](x.md)')).toBe('a--b-bold-link');
  });

  it('finds the links (guards against a silently broken extractor)', () => {
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.flatMap(links).filter((l) => !external(l.target)).length).toBeGreaterThan(50);
  });

  it('every relative link and #anchor in README.md, CONTRIBUTING.md and docs/ resolves', () => {
    expect(
      pages
        .flatMap(links)
        .flatMap((l) => broken(l) ?? [])
        .join('\n'),
    ).toBe('');
  });

  it('every page under docs/ (and CONTRIBUTING.md) is reachable from the README', () => {
    const seen = reachable();
    expect(pages.filter((p) => !seen.has(p)).map((p) => relative(root, p))).toEqual([]);
  });

  it('every page under docs/ starts with a summary paragraph and links back to the README', () => {
    const problems = walk(join(root, 'docs'), '.md').flatMap((page) => {
      const name = relative(root, page);
      const lines = readFileSync(page, 'utf8').split(/\r?\n/);
      const first = lines.slice(1).find((l) => l.trim() !== '') ?? '';
      const back = links(page).some((l) => resolveLink(l).file === README);
      return [
        ...(lines[0]?.startsWith('# ') ? [] : [`${name}: does not start with a # title`]),
        ...(/^\s*(#|```|~~~|\||[-*+] |\d+\. |\[←)/.test(first) ? [`${name}: no summary paragraph after the title`] : []),
        ...(back ? [] : [`${name}: no link back to README.md`]),
      ];
    });
    expect(problems).toEqual([]);
  });
});
