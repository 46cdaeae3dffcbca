/**
 * The guide pages and how repository links become site links. Pure functions
 * on file names and text, so the build and its unit test share them.
 *
 * The site mirrors the repository: README.md is the home page (index.md), and
 * docs/x.md stays docs/x.md. A link between two of them therefore keeps its
 * relative path (only README.md is renamed); a link to any other file of the
 * repository (bench/README.md, src/...) points outside the site and is
 * rewritten to the repository's web page when package.json names one, or
 * else shown as plain text, so it never breaks.
 */
import { posix } from 'node:path';

/** A guide as the navigation shows it. */
export interface Guide {
  /** The guide's file in the repository, e.g. `docs/sqs.md`. */
  readonly repoPath: string;
  /** Its page in the site's source folder, e.g. `docs/sqs.md` (README.md becomes `index.md`). */
  readonly sitePath: string;
  /** The text of its first `# ` heading, without Markdown. */
  readonly title: string;
}

/** The README is the home page. */
export const HOME = { repoPath: 'README.md', sitePath: 'index.md' } as const;

/** The page's title: its first level-1 ATX heading outside fenced code, stripped of inline Markdown. */
export function firstHeading(markdown: string): string | undefined {
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (open?.[1] !== undefined) {
      if (fence === undefined) fence = open[1];
      else if (open[1].startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^ {0,3}# +(.+?)(?: +#+)? *$/.exec(line);
    if (heading?.[1] !== undefined) return plainText(heading[1]);
  }
  return undefined;
}

/** Inline Markdown to its text: links to their text, code spans and emphasis to their content. */
export function plainText(inline: string): string {
  return inline
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__|\*|_)(\S(?:.*?\S)?)\1/g, '$2')
    .trim();
}

/** The repository paths the README links, in the order they first appear (the order the sidebar lists the guides in). */
export function linkOrder(readme: string): string[] {
  const seen: string[] = [];
  for (const m of readme.matchAll(/\]\(\s*<?([^)#\s>]+)/g)) {
    const target = m[1];
    if (target === undefined || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const path = posix.normalize(target.replace(/^\.\//, ''));
    if (!seen.includes(path)) seen.push(path);
  }
  return seen;
}

/**
 * The guides from docs/*.md (names relative to docs/) and their texts: the README's order first, then the
 * rest by name. docs/README.md or docs/index.md, if one appears, is the folder's index page.
 */
export function guides(files: ReadonlyMap<string, string>, readme: string): Guide[] {
  const order = linkOrder(readme);
  const rank = (repoPath: string): number => {
    const i = order.indexOf(repoPath);
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  return [...files]
    .map(([name, text]) => {
      const repoPath = `docs/${name}`;
      const sitePath = name === 'README.md' ? 'docs/index.md' : repoPath;
      return { repoPath, sitePath, title: firstHeading(text) ?? name.replace(/\.md$/, '') };
    })
    .sort((a, b) => rank(a.repoPath) - rank(b.repoPath) || a.repoPath.localeCompare(b.repoPath));
}

/** The site page a guide's file becomes, as a VitePress link (`/docs/sqs`). */
export function siteLink(sitePath: string): string {
  const page = sitePath.replace(/\.md$/, '');
  if (page === 'index') return '/';
  return `/${page.replace(/\/index$/, '/')}`;
}

/** What becomes of one link in a guide. */
export type LinkRewrite =
  | { readonly kind: 'keep' }
  | { readonly kind: 'link'; readonly href: string }
  | { readonly kind: 'text'; readonly repoPath: string };

/** What the rewrite needs to know about the repository. */
export interface LinkContext {
  /** Repository path of each page in the site -> its path in the site's source folder. */
  readonly pages: ReadonlyMap<string, string>;
  /** Files copied into the site as they are (images beside the guides), by repository path. */
  readonly assets: ReadonlySet<string>;
  /** The repository's web address (`https://github.com/o/r`), from package.json; without it, such links become text. */
  readonly repoUrl?: string | undefined;
}

/** A link in the page `from` (a repository path such as `README.md` or `docs/sqs.md`) as the site must write it. */
export function rewriteLink(href: string, from: string, context: LinkContext): LinkRewrite {
  if (href === '' || href.startsWith('#') || href.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(href)) return { kind: 'keep' };
  const hashAt = href.indexOf('#');
  const path = hashAt === -1 ? href : href.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : href.slice(hashAt);
  const target = posix.normalize(posix.join(posix.dirname(from), decodeURI(path))).replace(/\/$/, '');
  if (target.startsWith('..')) return { kind: 'keep' };
  const page = context.pages.get(target);
  const fromPage = context.pages.get(from) ?? from;
  if (page !== undefined) {
    const relative = posix.relative(posix.dirname(fromPage), page) || posix.basename(page);
    return { kind: 'link', href: encodeURI(relative) + hash };
  }
  if (context.assets.has(target)) return { kind: 'keep' };
  if (context.repoUrl !== undefined) return { kind: 'link', href: `${context.repoUrl}/blob/HEAD/${encodeURI(target)}${hash}` };
  return { kind: 'text', repoPath: target };
}

/**
 * GitHub's heading ids (lower case; punctuation dropped; each space a hyphen), so the anchors the README and
 * the guides were written against on GitHub (`#group-commit-sqs-the-default`) work on the site as they are.
 */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** VitePress's own heading ids (the ones typedoc-vitepress-theme writes its links against): kept for the API pages. */
export function vitepressSlug(heading: string): string {
  return (
    heading
      .normalize('NFKD')
      .replace(/[\u0300-\u036F]/g, '')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes.
      .replace(/[\u0000-\u001f]/g, '')
      .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^-+|-+$/g, '')
      .replace(/^(\d)/, '_$1')
      .toLowerCase()
  );
}

/** The repository's web address from package.json's `repository`, if it names one. */
export function repositoryUrl(repository: unknown): string | undefined {
  const raw = typeof repository === 'string' ? repository : (repository as { url?: unknown } | undefined)?.url;
  if (typeof raw !== 'string') return undefined;
  const github = /^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(raw);
  if (github?.[1] !== undefined) return `https://github.com/${github[1]}`;
  const url = raw.replace(/^git\+/, '').replace(/\.git$/, '');
  return /^https?:\/\//.test(url) ? url : undefined;
}
