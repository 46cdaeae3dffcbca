/**
 * The documentation site's pure parts (scripts/docs/pages.ts, serve.ts): the navigation generated from
 * docs/*.md, the repository links rewritten for the site, the heading ids. The browser check itself is
 * `npm run docs:check`, outside `npm test` (it needs Chromium).
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  firstHeading,
  githubSlug,
  guides,
  linkOrder,
  repositoryUrl,
  rewriteLink,
  siteLink,
  vitepressSlug,
  type LinkContext,
} from '../../../scripts/docs/pages.js';
import { resolveFile } from '../../../scripts/docs/serve.js';

describe('the navigation from docs/*.md', () => {
  it('takes each title from the first level-1 heading outside code, without Markdown', () => {
    expect(firstHeading('intro\n```md\n# not this\n```\n# The `sqsIdempotency()` [guide](x.md)\n# second')).toBe(
      'The sqsIdempotency() guide',
    );
    expect(firstHeading('## only a subheading')).toBeUndefined();
  });

  it('lists the guides in the order the README links them, then the others by name', () => {
    const readme = 'See [b](docs/b.md#x), [a link](https://x.y/docs/z.md), then [a](./docs/a.md) and [b again](docs/b.md).';
    expect(linkOrder(readme)).toEqual(['docs/b.md', 'docs/a.md']);
    const files = new Map([
      ['z.md', '# Zed'],
      ['a.md', '# Alpha'],
      ['c.md', 'no heading'],
      ['b.md', '# Beta'],
    ]);
    expect(guides(files, readme).map((g) => [g.repoPath, g.title])).toEqual([
      ['docs/b.md', 'Beta'],
      ['docs/a.md', 'Alpha'],
      ['docs/c.md', 'c'],
      ['docs/z.md', 'Zed'],
    ]);
    expect(siteLink('docs/b.md')).toBe('/docs/b');
    expect(siteLink('index.md')).toBe('/');
  });
});

describe('repository links on the site', () => {
  const context: LinkContext = {
    pages: new Map([
      ['README.md', 'index.md'],
      ['docs/sqs.md', 'docs/sqs.md'],
      ['docs/cli.md', 'docs/cli.md'],
    ]),
    assets: new Set(['docs/diagram.svg']),
  };

  it('keeps links between pages, with README.md as the home page', () => {
    expect(rewriteLink('docs/sqs.md#group-commit', 'README.md', context)).toEqual({ kind: 'link', href: 'docs/sqs.md#group-commit' });
    expect(rewriteLink('../README.md#install', 'docs/sqs.md', context)).toEqual({ kind: 'link', href: '../index.md#install' });
    expect(rewriteLink('cli.md', 'docs/sqs.md', context)).toEqual({ kind: 'link', href: 'cli.md' });
    expect(rewriteLink('./sqs.md#x', 'docs/sqs.md', context)).toEqual({ kind: 'link', href: 'sqs.md#x' });
  });

  it('leaves anchors, absolute and external links and the guides assets alone', () => {
    for (const href of ['#usage', '/api/', 'https://aws.amazon.com', 'mailto:a@b.c'])
      expect(rewriteLink(href, 'README.md', context)).toEqual({ kind: 'keep' });
    expect(rewriteLink('diagram.svg', 'docs/sqs.md', context)).toEqual({ kind: 'keep' });
  });

  it('turns a link to another file of the repository into text, or a link to the repository when package.json names one', () => {
    expect(rewriteLink('../bench/README.md', 'docs/benchmarks.md', context)).toEqual({ kind: 'text', repoPath: 'bench/README.md' });
    expect(rewriteLink('docs/gone.md', 'README.md', context)).toEqual({ kind: 'text', repoPath: 'docs/gone.md' });
    expect(rewriteLink('src/index.ts#L3', 'README.md', { ...context, repoUrl: 'https://github.com/o/r' })).toEqual({
      kind: 'link',
      href: 'https://github.com/o/r/blob/HEAD/src/index.ts#L3',
    });
    expect(repositoryUrl({ type: 'git', url: 'git+https://github.com/o/r.git' })).toBe('https://github.com/o/r');
    expect(repositoryUrl('github:o/r')).toBe('https://github.com/o/r');
    expect(repositoryUrl('o/r')).toBe('https://github.com/o/r');
    expect(repositoryUrl(undefined)).toBeUndefined();
  });
});

describe('heading ids', () => {
  it("are GitHub's on the guides, so the README's anchors work as written", () => {
    expect(githubSlug('Group commit (SQS, the default)')).toBe('group-commit-sqs-the-default');
    expect(githubSlug('Long effects: lease heartbeat')).toBe('long-effects-lease-heartbeat');
    expect(githubSlug('Plain functions: idempotent(fn)')).toBe('plain-functions-idempotentfn');
    expect(githubSlug('A + B')).toBe('a--b');
    expect(githubSlug('MAX_BYTES')).toBe('max_bytes');
  });

  it("are VitePress's on the API pages, as typedoc-vitepress-theme links them", () => {
    expect(vitepressSlug('MAX_BYTES')).toBe('max-bytes');
    expect(vitepressSlug('new Store()')).toBe('new-store');
    expect(vitepressSlug('1st')).toBe('_1st');
  });
});

describe('the check server', () => {
  it('serves VitePress output as a static host does, and nothing outside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-serve-'));
    mkdirSync(join(dir, 'docs'));
    mkdirSync(join(dir, 'api'));
    for (const f of ['index.html', 'docs/sqs.html', 'api/index.html']) writeFileSync(join(dir, f), f);
    expect(resolveFile(dir, '/')).toBe(join(dir, 'index.html'));
    expect(resolveFile(dir, '/docs/sqs')).toBe(join(dir, 'docs/sqs.html'));
    expect(resolveFile(dir, '/docs/sqs.html?x=1#a')).toBe(join(dir, 'docs/sqs.html'));
    expect(resolveFile(dir, '/api/')).toBe(join(dir, 'api/index.html'));
    expect(resolveFile(dir, '/api')).toBe(join(dir, 'api/index.html'));
    expect(resolveFile(dir, '/docs/missing.html')).toBeUndefined();
    expect(resolveFile(dir, '/../etc/passwd')).toBeUndefined();
    expect(resolveFile(dir, '/%2e%2e/%2e%2e/etc/passwd')).toBeUndefined();
  });
});
