/**
 * Helpers for test/checks/docs-examples.test.ts: find the TypeScript examples
 * users read (```ts blocks in README.md and docs/, ```ts fences in TSDoc
 * comments under src/) and type-check them all in one compiler program, the
 * way a user's strict project would see them.
 *
 * How imports resolve: each example is written as its own module into a fresh
 * folder under node_modules/.cache/doc-examples/ (inside the project, so
 * node_modules resolution finds @middy/core, the AWS SDK and @types/aws-lambda),
 * next to a generated tsconfig.json that extends the project's tsconfig.json
 * (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, NodeNext,
 * verbatimModuleSyntax) and maps `effectively-once` and
 * `effectively-once/testing` to src/ with `paths` (NodeNext honours `paths`
 * for bare specifiers, and they win over the package's self-reference, which
 * would point at dist/). Relative imports in an example (`'./options.js'` in an
 * internal file's TSDoc) are rewritten to point at the same file seen from the
 * example's source folder, so internal helpers' examples are checked too
 * rather than skipped.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One code block, with where a reader finds it. */
export interface Example {
  /** Project-relative file the block comes from. */
  readonly file: string;
  /** 1-based line, in `file`, of the block's first code line. */
  readonly line: number;
  readonly code: string;
  /** Folder that relative imports in the block are relative to. */
  readonly baseDir: string;
}

/**
 * A fence info string with one of these words opts a block out, visibly, in the source: ```ts no-check (a
 * fragment), ```ts before (the old code of a CHANGELOG entry's before → after, which no longer compiles).
 */
const OPT_OUT = /(?:^|\s)(?:no-check|before)(?:\s|$)/;
const TS_LANGS = new Set(['ts', 'typescript']);

/**
 * Fenced TypeScript blocks in `lines`. `firstLine` is the 1-based line of
 * `lines[0]` in the origin file, so reports point where the reader looks.
 */
export function fencedBlocks(lines: readonly string[], firstLine: number): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  let open: { indent: string; fence: string; check: boolean; start: number; body: string[] } | undefined;
  lines.forEach((text, i) => {
    if (open === undefined) {
      const m = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)(.*)$/.exec(text);
      if (m === null) return;
      const lang = (m[3] ?? '').toLowerCase();
      const check = TS_LANGS.has(lang) && !OPT_OUT.test(m[4] ?? '');
      open = { indent: m[1] ?? '', fence: m[2] ?? '```', check, start: i + 1, body: [] };
    } else if (isClosingFence(text, open.fence)) {
      if (open.check) blocks.push({ line: firstLine + open.start, code: `${open.body.join('\n')}\n` });
      open = undefined;
    } else {
      open.body.push(text.startsWith(open.indent) ? text.slice(open.indent.length) : text.trimStart());
    }
  });
  return blocks;
}

/** CommonMark: a fence closes on the same character, at least as long (so ````md blocks may show ``` inside). */
function isClosingFence(text: string, fence: string): boolean {
  const m = /^\s*(`{3,}|~{3,})\s*$/.exec(text);
  return m !== null && (m[1] ?? '')[0] === fence[0] && (m[1] ?? '').length >= fence.length;
}

/** ```ts blocks of a Markdown file. */
export function markdownExamples(root: string, path: string): Example[] {
  const lines = readFileSync(path, 'utf8').split(/\r?\n/);
  return fencedBlocks(lines, 1).map((b) => ({ file: relative(root, path), ...b, baseDir: dirname(path) }));
}

/**
 * ```ts fences inside the `/** ... *\/` comments of a source file. Comments are
 * found through the parser (every node's leading comments), so a `/**` inside
 * a string or template can't be mistaken for one.
 */
export function tsdocExamples(root: string, path: string): Example[] {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const seen = new Set<number>();
  const examples: Example[] = [];
  const visit = (node: ts.Node): void => {
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      if (seen.has(range.pos) || !text.startsWith('/**', range.pos)) continue;
      seen.add(range.pos);
      const startLine = source.getLineAndCharacterOfPosition(range.pos).line + 1;
      const lines = text
        .slice(range.pos, range.end)
        .split(/\r?\n/)
        .map((l) =>
          l
            .replace(/^\s*\/\*\*\s?/, '')
            .replace(/\s*\*\/\s*$/, '')
            .replace(/^\s*\* ?/, ''),
        );
      for (const b of fencedBlocks(lines, startLine)) examples.push({ file: relative(root, path), ...b, baseDir: dirname(path) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return examples;
}

/** Files under `dir` (recursively) whose name ends with `suffix`; none when `dir` does not exist. */
export function walk(dir: string, suffix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path, suffix);
    return path.endsWith(suffix) && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** Points relative module specifiers (import/export ... from, import(), import '...') at `fromDir`'s files, seen from `toDir`. */
export function rewriteRelativeImports(code: string, fromDir: string, toDir: string): string {
  return code.replace(/(\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]*)\2/g, (_all, lead: string, quote: string, spec: string) => {
    let target = relative(toDir, resolve(fromDir, spec)).split(sep).join('/');
    if (!target.startsWith('.')) target = `./${target}`;
    return `${lead}${quote}${target}${quote}`;
  });
}

/** The compiled examples and the program, so the caller can also inspect the public API with the same checker. */
export interface CompiledExamples {
  readonly program: ts.Program;
  /** One entry per failing example: origin header, then its diagnostics with origin lines. */
  readonly failures: string[];
}

/** Where `effectively-once` comes from: the source (`paths`, the default), or a built package folder. */
export interface ExampleResolution {
  /**
   * A folder holding the package as it is installed (package.json, dist/): linked as
   * node_modules/effectively-once beside the examples, so they import it as a user does (its `exports`, its
   * declarations), and what it imports resolves from this repository's node_modules.
   */
  readonly packageDir?: string;
}

/**
 * Type-checks every example in one program (rootNames: the examples plus
 * `extraRoots`). Returns diagnostics mapped back to their origin. The
 * temporary folder is removed before returning unless DOC_EXAMPLES_KEEP is
 * set (then it is printed, and `npx tsc -p <dir>` reproduces the run).
 */
export function compileExamples(
  root: string,
  examples: readonly Example[],
  extraRoots: readonly string[],
  resolution: ExampleResolution = {},
): CompiledExamples {
  const cache = join(root, 'node_modules', '.cache', 'doc-examples');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'run-'));
  try {
    const byFile = new Map<string, Example>();
    examples.forEach((ex, i) => {
      const name = `${String(i).padStart(3, '0')}-${ex.file.replace(/[^\w]+/g, '_')}-L${ex.line}.ts`;
      writeFileSync(join(dir, name), rewriteRelativeImports(ex.code, ex.baseDir, dir));
      byFile.set(resolve(dir, name), ex);
    });
    if (resolution.packageDir !== undefined) {
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(resolution.packageDir, join(dir, 'node_modules', 'effectively-once'), 'dir');
    }
    writeTsconfig(root, dir, [...byFile.keys(), ...extraRoots], resolution);
    const program = createProgram(join(dir, 'tsconfig.json'));
    return { program, failures: collectFailures(program, byFile) };
  } finally {
    if (process.env['DOC_EXAMPLES_KEEP'] === undefined) rmSync(dir, { recursive: true, force: true });
    else console.log(`doc examples kept in ${dir}`);
  }
}

function writeTsconfig(root: string, dir: string, files: readonly string[], resolution: ExampleResolution): void {
  const fromSource = {
    paths: {
      'effectively-once': [join(root, 'src', 'index.ts')],
      'effectively-once/testing': [join(root, 'src', 'testing', 'index.ts')],
      'effectively-once/tracing': [join(root, 'src', 'tracing', 'index.ts')],
      'effectively-once/powertools': [join(root, 'src', 'powertools', 'index.ts')],
    },
  };
  // The linked package is read where it is linked, so its own imports resolve from this repository's node_modules.
  const fromPackage = { paths: {}, preserveSymlinks: true };
  const config = {
    extends: relative(dir, join(root, 'tsconfig.json')).split(sep).join('/'),
    compilerOptions: {
      // Examples are modules even without import/export: no clashes between them, top-level await allowed.
      moduleDetection: 'force',
      // Examples are not published: declaration emit rules (TS4023 and friends) are not what a reader meets.
      declaration: false,
      sourceMap: false,
      noEmit: true,
      ...(resolution.packageDir === undefined ? fromSource : fromPackage),
    },
    include: [],
    files,
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config, null, 2));
  // Own package scope: the examples are ESM (top-level await) whatever the project's package.json says.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
}

function createProgram(configPath: string): ts.Program {
  const configErrors: ts.Diagnostic[] = [];
  const host: ts.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => configErrors.push(d),
  };
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, host);
  const errors = [...configErrors, ...(parsed?.errors ?? [])];
  if (parsed === undefined || errors.length > 0) throw new Error(`doc-examples tsconfig: ${format(errors)}`);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

function collectFailures(program: ts.Program, byFile: ReadonlyMap<string, Example>): string[] {
  const failures: string[] = [];
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  if (global.length > 0) failures.push(`compiler options / global:\n${format(global)}`);
  for (const [path, ex] of byFile) {
    const sf = program.getSourceFile(path);
    if (sf === undefined) {
      failures.push(`${ex.file}:${ex.line}\n  example was not part of the program`);
      continue;
    }
    const diags = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
    if (diags.length === 0) continue;
    const lines = diags.map((d) => {
      const at = d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      const where = at === undefined ? ex.file : `${ex.file}:${ex.line + at.line}:${at.character + 1}`;
      return `  ${where} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n    ')}`;
    });
    failures.push(`${ex.file}:${ex.line} (example starting here)\n${lines.join('\n')}`);
  }
  return failures;
}

function format(diags: readonly ts.Diagnostic[]): string {
  return diags.map((d) => `  TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n    ')}`).join('\n');
}
