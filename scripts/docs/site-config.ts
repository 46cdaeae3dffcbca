/**
 * The VitePress configuration of the documentation site. scripts/docs/build.ts writes
 * site/src/.vitepress/config.mts, which calls createConfig with the manifest of what it laid out:
 * the guides found in docs/ (the navigation is generated from them, never listed by hand), the API
 * sidebar TypeDoc wrote, and how repository paths map to site pages.
 */
import type { DefaultTheme, MarkdownRenderer, UserConfig } from 'vitepress';
import { HOME, githubSlug, rewriteLink, siteLink, vitepressSlug, type Guide, type LinkContext } from './pages.js';

/** What build.ts hands the configuration (as JSON). */
export interface SiteManifest {
  readonly title: string;
  readonly description: string;
  readonly outDir: string;
  readonly guides: readonly Guide[];
  /** Files under docs/ that are not guides, copied as they are. */
  readonly assets: readonly string[];
  readonly apiFolder: string;
  readonly apiSidebar: DefaultTheme.SidebarItem[];
  readonly repoUrl?: string | undefined;
}

type Core = MarkdownRenderer['core'];
type CoreRule = Parameters<Core['ruler']['push']>[1];
type StateCore = Parameters<CoreRule>[0];
type Token = StateCore['tokens'][number];

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The repository file a site page came from (README.md for index.md); undefined for generated pages (the API). */
function repoPathOf(sitePath: string, manifest: SiteManifest): string | undefined {
  if (sitePath === HOME.sitePath) return HOME.repoPath;
  return manifest.guides.find((g) => g.sitePath === sitePath)?.repoPath;
}

/** Links written for the repository (docs/x.md, ../README.md, bench/README.md) rewritten for the site; see pages.ts. */
function repositoryLinks(md: MarkdownRenderer, manifest: SiteManifest): void {
  const context: LinkContext = {
    pages: new Map([[HOME.repoPath, HOME.sitePath], ...manifest.guides.map((g): [string, string] => [g.repoPath, g.sitePath])]),
    assets: new Set(manifest.assets),
    repoUrl: manifest.repoUrl,
  };
  const rewriteInline = (children: Token[], from: string): void => {
    const open: boolean[] = [];
    for (const token of children) {
      if (token.type === 'link_open') {
        const rewrite = rewriteLink(token.attrGet('href') ?? '', from, context);
        open.push(rewrite.kind === 'text');
        if (rewrite.kind === 'link') token.attrSet('href', rewrite.href);
        if (rewrite.kind === 'text') {
          // A file of the repository that is not part of the site: its name stays, as text with the path.
          token.type = 'html_inline';
          token.content = `<span class="repo-path" title="${escapeHtml(`${rewrite.repoPath} in the repository`)}">`;
        }
      } else if (token.type === 'link_close' && open.pop() === true) {
        token.type = 'html_inline';
        token.content = '</span>';
      }
    }
  };
  md.core.ruler.push('effectively-once-repository-links', (state) => {
    const relativePath = (state.env as { relativePath?: string }).relativePath;
    const from = relativePath === undefined ? undefined : repoPathOf(relativePath, manifest);
    if (from === undefined) return;
    for (const token of state.tokens) if (token.type === 'inline' && token.children !== null) rewriteInline(token.children, from);
  });
}

/** The guides' anchors are GitHub's (the README and docs/ are written for GitHub too); the API's are VitePress's. */
function slugifyWithState(manifest: SiteManifest) {
  return (title: string, state: StateCore): string => {
    const relativePath = (state.env as { relativePath?: string }).relativePath ?? '';
    return relativePath.startsWith(`${manifest.apiFolder}/`) ? vitepressSlug(title) : githubSlug(title);
  };
}

/**
 * TypeDoc nests the entry points under the first (`effectively-once` > `testing`): list each module at the
 * top, under its import specifier.
 */
function apiSidebar(items: readonly DefaultTheme.SidebarItem[]): DefaultTheme.SidebarItem[] {
  return items.flatMap((module) => {
    const children = module.items ?? [];
    const nested = children.filter((c) => c.link?.endsWith('/') === true);
    const own = children.filter((c) => !nested.includes(c));
    return [{ ...module, items: own }, ...apiSidebar(nested.map((n) => ({ ...n, text: `${module.text}/${n.text}` })))];
  });
}

export function createConfig(manifest: SiteManifest): UserConfig<DefaultTheme.Config> {
  const guides = manifest.guides.map((g) => ({ text: g.title, link: siteLink(g.sitePath) }));
  const apiRoot = `/${manifest.apiFolder}/`;
  return {
    title: manifest.title,
    description: manifest.description,
    outDir: manifest.outDir,
    cleanUrls: false,
    // A link to a page that does not exist fails the build.
    ignoreDeadLinks: false,
    markdown: {
      anchor: { slugifyWithState: slugifyWithState(manifest) },
      config: (md) => repositoryLinks(md, manifest),
    },
    // The local search index of ~270 pages is one chunk of about 1.2 MB, loaded when the search box opens.
    vite: { build: { chunkSizeWarningLimit: 4096 } },
    themeConfig: {
      nav: [
        { text: 'Guides', link: guides[0]?.link ?? '/', activeMatch: '^/docs/' },
        { text: 'API reference', link: apiRoot, activeMatch: `^${apiRoot}` },
      ],
      sidebar: [
        { text: 'Guides', items: [{ text: 'Overview', link: '/' }, ...guides] },
        { text: 'API reference', link: apiRoot, items: apiSidebar(manifest.apiSidebar) },
      ],
      search: { provider: 'local' },
      outline: { level: [2, 3] },
      socialLinks: manifest.repoUrl === undefined ? [] : [{ icon: 'github', link: manifest.repoUrl }],
    },
  };
}
