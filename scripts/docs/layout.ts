/**
 * Where the documentation site's pieces live. Everything generated is under
 * site/ (git-ignored, so Biome, tsc and git leave it alone):
 *
 *   site/src/    the VitePress project that scripts/docs/build.ts lays out: index.md (from README.md),
 *                docs/*.md (copied), api/ (TypeDoc's Markdown), .vitepress/ (config and manifest)
 *   site/dist/   the built static site (`npm run docs`)
 *   site/check/  screenshots from the browser check (`npm run docs:check`)
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const siteRoot = join(root, 'site');
export const siteSrc = join(siteRoot, 'src');
export const siteDist = join(siteRoot, 'dist');
export const checkDir = join(siteRoot, 'check');
/** The guides, one source with the README's links. */
export const docsDir = join(root, 'docs');
/** Under siteSrc: where TypeDoc writes the API reference. */
export const apiFolder = 'api';
