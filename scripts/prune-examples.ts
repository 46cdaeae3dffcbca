/**
 * `@example` blocks belong on the public API only: a reader of an internal
 * helper has its callers to learn from, and every internal example is code the
 * docs check must compile and a refactor must keep up. This finds the public
 * API (every name the package entries export, followed through re-exports to
 * its declaration, and everything declared inside one: the members of a public
 * class or interface) and removes `@example` blocks from every other TSDoc
 * comment under src/, keeping the rest of the comment.
 *
 *   npx tsx scripts/prune-examples.ts          # rewrite the files
 *   npx tsx scripts/prune-examples.ts --check  # list them; exit 1 if any
 *
 * test/checks/docs-examples.test.ts runs the same search and fails on any hit.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The package entries (package.json `exports`) that exist in this checkout. */
export function entryPoints(root: string): string[] {
  const candidates = [['index.ts'], ['testing', 'index.ts'], ['tracing', 'index.ts'], ['powertools', 'index.ts']];
  return candidates.map((parts) => join(root, 'src', ...parts)).filter((p) => existsSync(p));
}

/** Each name `entry` exports, with the symbol it resolves to through `export { x } from` and `export *`. */
export function publicExports(checker: ts.TypeChecker, sf: ts.SourceFile): { exported: ts.Symbol; symbol: ts.Symbol }[] {
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  if (moduleSymbol === undefined) return [];
  return checker.getExportsOfModule(moduleSymbol).map((exported) => ({
    exported,
    symbol: exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported,
  }));
}

/** Declarations of the public API. `export const x` declares a VariableDeclaration; its comment sits on the statement. */
function publicDeclarations(program: ts.Program, entries: readonly string[]): Set<ts.Node> {
  const checker = program.getTypeChecker();
  const nodes = new Set<ts.Node>();
  for (const entry of entries) {
    const sf = program.getSourceFile(entry);
    if (sf === undefined) throw new Error(`${entry} is not in the program`);
    nodes.add(sf);
    for (const { symbol } of publicExports(checker, sf)) {
      for (const decl of symbol.declarations ?? []) {
        nodes.add(decl);
        if (ts.isVariableDeclaration(decl)) nodes.add(decl.parent.parent);
      }
      for (const decl of assignedProperties(checker, symbol)) nodes.add(decl);
    }
  }
  return nodes;
}

/**
 * The declarations of the functions a public function carries as properties
 * (`eachRecord.inTransaction = inTransaction`): public too, reached through
 * the name they hang on.
 */
function assignedProperties(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Declaration[] {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const found: ts.Declaration[] = [];
  target.exports?.forEach((member) => {
    for (const decl of member.declarations ?? []) {
      const assigned = ts.isBinaryExpression(decl.parent) ? decl.parent.right : undefined;
      if (assigned === undefined || !ts.isIdentifier(assigned)) continue;
      found.push(...(checker.getSymbolAtLocation(assigned)?.declarations ?? []));
    }
  });
  return found;
}

/** One `@example` block: where it is and the lines of its comment it spans. */
export interface ExampleBlock {
  readonly file: string;
  /** 1-based line of the `@example` tag. */
  readonly line: number;
  readonly isPublic: boolean;
  /** Character range of the whole comment in the file. */
  readonly comment: { readonly pos: number; readonly end: number };
}

/** The comments of `sf`, each with the outermost node it leads (the node TSDoc documents). */
function commentsWithOwners(sf: ts.SourceFile): { pos: number; end: number; owner: ts.Node }[] {
  const seen = new Map<number, { pos: number; end: number; owner: ts.Node }>();
  const visit = (node: ts.Node): void => {
    for (const range of ts.getLeadingCommentRanges(sf.text, node.pos) ?? []) {
      if (!seen.has(range.pos) && sf.text.startsWith('/**', range.pos)) seen.set(range.pos, { ...range, owner: node });
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sf, visit);
  // A comment after the last statement leads no node but the end-of-file token.
  for (const range of ts.getLeadingCommentRanges(sf.text, sf.endOfFileToken.pos) ?? []) {
    if (!seen.has(range.pos) && sf.text.startsWith('/**', range.pos)) seen.set(range.pos, { ...range, owner: sf.endOfFileToken });
  }
  return [...seen.values()].sort((a, b) => a.pos - b.pos);
}

function isPublicNode(node: ts.Node, publicNodes: ReadonlySet<ts.Node>): boolean {
  for (let n: ts.Node | undefined = node; n !== undefined; n = n.parent) if (publicNodes.has(n)) return true;
  return false;
}

const EXAMPLE_TAG = /^\s*\*?\s*@example\b/m;

/** Every `@example` block in the TSDoc comments of `files`, marked public or not. */
export function findExamples(root: string, program: ts.Program, files: readonly string[]): ExampleBlock[] {
  const publicNodes = publicDeclarations(program, entryPoints(root));
  return files.flatMap((file) => {
    const sf = program.getSourceFile(file) ?? ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    return commentsWithOwners(sf).flatMap(({ pos, end, owner }) => {
      const text = sf.text.slice(pos, end);
      const blocks: ExampleBlock[] = [];
      const tag = new RegExp(EXAMPLE_TAG.source, 'gm');
      for (let m = tag.exec(text); m !== null; m = tag.exec(text)) {
        const line = sf.getLineAndCharacterOfPosition(pos + m.index + m[0].indexOf('@')).line + 1;
        blocks.push({ file: relative(root, file), line, isPublic: isPublicNode(owner, publicNodes), comment: { pos, end } });
      }
      return blocks;
    });
  });
}

/** A program over every .ts file under src/ (entries first), as the compiler sees the package. */
export function sourceProgram(root: string): { program: ts.Program; files: string[] } {
  const files = walk(join(root, 'src'));
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const options = { ...(config?.options ?? {}), noEmit: true };
  return { program: ts.createProgram({ rootNames: files, options }), files };
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return walk(path);
      return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
    });
}

/** Content of a comment line without its ` * ` prefix. */
const body = (line: string): string => line.replace(/^\s*\/?\*+\/?\s?/, '');

/** CommonMark: a fence closes on the same character, at least as long. */
const closes = (mark: string, open: string | undefined): boolean => open !== undefined && mark[0] === open[0] && mark.length >= open.length;

/**
 * `comment` without its `@example` blocks. A block runs from its tag to the
 * next tag outside a code fence, or to the end of the comment. Returns '' when
 * nothing but the delimiters would be left.
 */
export function withoutExamples(comment: string): string {
  const lines = comment.split('\n');
  if (lines.length < 3) return comment; // one-line `/** ... */`: never carries a fenced example here
  const kept: string[] = [];
  let inExample = false;
  let fence: string | undefined;
  for (const line of lines.slice(1, -1)) {
    const content = body(line);
    const fenceMark = /^(`{3,}|~{3,})/.exec(content)?.[1];
    if (fence === undefined && /^@\w/.test(content)) inExample = content.startsWith('@example');
    if (fenceMark !== undefined && fence === undefined) fence = fenceMark;
    else if (fenceMark !== undefined && content.trim() === fenceMark && closes(fenceMark, fence)) fence = undefined;
    if (!inExample) kept.push(line);
  }
  while (kept.length > 0 && body(kept[kept.length - 1] ?? '').trim() === '') kept.pop();
  if (kept.length === 0) return '';
  return [lines[0], ...kept, lines[lines.length - 1]].join('\n');
}

/** Rewrites `file`'s comments listed in `blocks` (all from that file); returns the number of lines removed. */
function pruneFile(root: string, file: string, blocks: readonly ExampleBlock[]): number {
  const path = join(root, file);
  let text = readFileSync(path, 'utf8');
  const before = text.split('\n').length;
  const comments = [...new Map(blocks.map((b) => [b.comment.pos, b.comment])).values()].sort((a, b) => b.pos - a.pos);
  for (const { pos, end } of comments) {
    const pruned = withoutExamples(text.slice(pos, end));
    if (pruned !== '') {
      text = text.slice(0, pos) + pruned + text.slice(end);
    } else {
      // Drop the emptied comment with its indentation and line break.
      const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
      const after = text[end] === '\n' ? end + 1 : end;
      text = text.slice(0, text.slice(lineStart, pos).trim() === '' ? lineStart : pos) + text.slice(after);
    }
  }
  writeFileSync(path, text);
  return before - text.split('\n').length;
}

function main(): void {
  const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
  const check = process.argv.includes('--check');
  const { program, files } = sourceProgram(root);
  const all = findExamples(root, program, files);
  const internal = all.filter((b) => !b.isPublic);
  console.log(`@example blocks: ${all.length - internal.length} on public API, ${internal.length} on internal declarations`);
  if (check) {
    for (const b of internal) console.log(`  ${b.file}:${b.line}`);
    process.exitCode = internal.length > 0 ? 1 : 0;
    return;
  }
  const byFile = new Map<string, ExampleBlock[]>();
  for (const b of internal) byFile.set(b.file, [...(byFile.get(b.file) ?? []), b]);
  let lines = 0;
  for (const [file, blocks] of byFile) lines += pruneFile(root, file, blocks);
  console.log(`removed ${internal.length} blocks (${lines} lines) from ${byFile.size} files`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
