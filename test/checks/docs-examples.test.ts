/**
 * "Public API: typed, TSDoc on every export with an example that compiles.
 * README and docs are part of the feature." This test makes that checkable:
 *
 * 1. Every ```ts block in README.md and docs/**.md, and every ```ts fence in a
 *    TSDoc comment under src/, functions/ (the reference service) and scripts/sim/ (the simulators), type-checks under the project's strict
 *    settings, as its own module, in one compiler program (examples may use
 *    top-level `await` and `export const handler = ...`). Imports of
 *    `effectively-once` and `effectively-once/testing` resolve to src/ through
 *    `paths`; relative imports in an internal file's example are rewritten to
 *    that file's folder, so internal examples are checked, not skipped (see
 *    test/support/doc-examples.ts). A block that is deliberately a fragment
 *    opts out with ```ts no-check, in the open.
 * 2. Every name exported from src/index.ts and src/testing/index.ts has a TSDoc
 *    summary, and every exported value (function, class, const, enum) an
 *    `@example`.
 *
 * Failures name the origin file:line, so fix the comment or README there.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileExamples, markdownExamples, tsdocExamples, walk, type CompiledExamples, type Example } from '../support/doc-examples.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const entryPoints = [join(root, 'src', 'index.ts'), join(root, 'src', 'testing', 'index.ts')];

function allExamples(): Example[] {
  const markdown = [join(root, 'README.md'), ...walk(join(root, 'docs'), '.md')].filter((p) => existsSync(p));
  return [
    ...markdown.flatMap((p) => markdownExamples(root, p)),
    ...walk(join(root, 'src'), '.ts').flatMap((p) => tsdocExamples(root, p)),
    ...walk(join(root, 'functions'), '.ts').flatMap((p) => tsdocExamples(root, p)),
    // The simulators left the package (src/testing/) for scripts/sim/; their examples are still checked.
    ...walk(join(root, 'scripts', 'sim'), '.ts').flatMap((p) => tsdocExamples(root, p)),
  ];
}

// Values are what a reader calls or constructs, so they need an example; types need a summary.
const VALUE = ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Variable | ts.SymbolFlags.Enum;

function where(symbol: ts.Symbol): string {
  const decl = symbol.declarations?.[0];
  if (decl === undefined) return '?';
  const sf = decl.getSourceFile();
  return `${relative(root, sf.fileName)}:${sf.getLineAndCharacterOfPosition(decl.getStart()).line + 1}`;
}

/** Public exports of `entry` lacking a TSDoc summary, or (for values) an `@example`. */
function undocumented(program: ts.Program, entry: string): string[] {
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(entry);
  const moduleSymbol = sf === undefined ? undefined : checker.getSymbolAtLocation(sf);
  if (moduleSymbol === undefined) return [`${relative(root, entry)}: not a module in the program`];
  const problems: string[] = [];
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const name = `${relative(root, entry)}: ${exported.name} (${where(symbol)})`;
    const summary = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
    if (summary === '') problems.push(`${name}: no TSDoc summary`);
    // `export type { SomeClass }` exposes only the type: no example needed.
    const typeOnly = exported.declarations?.some((d) => ts.isTypeOnlyImportOrExportDeclaration(d)) ?? false;
    const hasExample = symbol.getJsDocTags(checker).some((t) => t.name === 'example');
    if (symbol.flags & VALUE && !typeOnly && !hasExample) problems.push(`${name}: value export without @example`);
  }
  return problems;
}

describe('documentation', () => {
  let examples: Example[] = [];
  let compiled: CompiledExamples;

  beforeAll(() => {
    examples = allExamples();
    compiled = compileExamples(root, examples, entryPoints);
    // No timeout of its own: the checks project's hookTimeout (vitest.config.ts) is sized for a loaded 2-core machine.
  });

  it('finds the examples (guards against a silently broken extractor)', () => {
    expect(examples.filter((e) => e.file.startsWith('src')).length).toBeGreaterThan(10);
    expect(examples.filter((e) => e.file.startsWith('functions')).length).toBeGreaterThan(5);
    if (existsSync(join(root, 'README.md'))) expect(examples.some((e) => e.file === 'README.md')).toBe(true);
  });

  it('every ```ts block in README/docs and every TSDoc example (src/, functions/, scripts/sim/) compiles under the strict settings', () => {
    expect(compiled.failures.join('\n\n'), `${compiled.failures.length} of ${examples.length} examples fail`).toBe('');
  });

  it('every public export has a TSDoc summary, and every exported value an @example', () => {
    expect(entryPoints.flatMap((entry) => undocumented(compiled.program, entry)).join('\n')).toBe('');
  });
});
