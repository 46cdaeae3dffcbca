/**
 * The API report: the public surface of each entry point, one line per
 * exported name with its kind and its type as the compiler prints it, written
 * to api/*.api.md. The files are checked in, so a change to the public surface
 * (a name added, removed, or a signature changed) shows in review; the test
 * test/checks/api-report.test.ts fails with a diff when they are out of date.
 *
 *   npm run api:update     regenerate api/*.api.md after a deliberate change
 *   npm run api:release    at a release: also freeze them into api/released/*.api.md, the contract the next
 *                          changes are measured against (test/checks/api-report.test.ts: every export whose
 *                          lines differ from the released ones must be named in CHANGELOG.md's Unreleased section)
 *
 * Our own small printer on the TypeScript compiler API (api-extractor is not a
 * dependency): members are listed sorted, so the report does not churn when a
 * declaration is merely reordered.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** One entry point of the package and the report file that describes it. */
export interface ApiEntryPoint {
  /** The import specifier users write. */
  readonly specifier: string;
  /** Project-relative source file of the entry point. */
  readonly source: string;
  /** Project-relative report file. */
  readonly report: string;
}

export const entryPoints: readonly ApiEntryPoint[] = [
  { specifier: 'effectively-once', source: 'src/index.ts', report: 'api/effectively-once.api.md' },
  { specifier: 'effectively-once/testing', source: 'src/testing/index.ts', report: 'api/testing.api.md' },
  { specifier: 'effectively-once/tracing', source: 'src/tracing/index.ts', report: 'api/tracing.api.md' },
  { specifier: 'effectively-once/powertools', source: 'src/powertools/index.ts', report: 'api/powertools.api.md' },
];

const FLAGS =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrowStyleSignature |
  ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;

function kindOf(symbol: ts.Symbol): string {
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Enum) return 'enum';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Variable) return 'const';
  if (f & ts.SymbolFlags.Interface) return 'interface';
  if (f & ts.SymbolFlags.TypeAlias) return 'type';
  return 'other';
}

function typeParams(checker: ts.TypeChecker, symbol: ts.Symbol): string {
  const params = checker.getDeclaredTypeOfSymbol(symbol).isClassOrInterface()
    ? ((checker.getDeclaredTypeOfSymbol(symbol) as ts.InterfaceType).typeParameters ?? [])
    : [];
  const decl = symbol.declarations?.[0];
  const fromAlias = decl !== undefined && ts.isTypeAliasDeclaration(decl) ? (decl.typeParameters ?? []) : [];
  const names = params.length > 0 ? params.map((p) => checker.typeToString(p)) : fromAlias.map((p) => p.getText());
  return names.length > 0 ? `<${names.join(', ')}>` : '';
}

function modifiers(symbol: ts.Symbol): ts.ModifierFlags {
  const decl = symbol.declarations?.[0];
  return decl === undefined ? ts.ModifierFlags.None : ts.getCombinedModifierFlags(decl);
}

/** `name?: type` lines for the properties and methods of `type`, sorted by name. */
function members(checker: ts.TypeChecker, type: ts.Type, at: ts.Node, prefix: string): string[] {
  return (
    checker
      .getPropertiesOfType(type)
      .filter((p) => !p.name.startsWith('#') && !p.name.startsWith('__'))
      .filter((p) => !(modifiers(p) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)))
      // Members inherited from the platform (Error's stack, message, captureStackTrace) are not ours to promise.
      .filter((p) => !(p.declarations ?? []).some((d) => d.getSourceFile().fileName.includes('/node_modules/')))
      .map((p) => {
        const optional = p.flags & ts.SymbolFlags.Optional ? '?' : '';
        const readonly = modifiers(p) & ts.ModifierFlags.Readonly ? 'readonly ' : '';
        return `${prefix}${readonly}${p.name}${optional}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(p, at), at, FLAGS)}`;
      })
      .sort()
  );
}

function describeSymbol(checker: ts.TypeChecker, name: string, symbol: ts.Symbol, at: ts.Node): string[] {
  const kind = kindOf(symbol);
  const head = `${kind} ${name}${typeParams(checker, symbol)}`;
  switch (kind) {
    case 'function': {
      // A function with properties of its own (`eachRecord.inTransaction`) prints as `typeof name`: list its call
      // signatures and its properties instead, so a change to either shows here.
      const type = checker.getTypeOfSymbolAtLocation(symbol, at);
      const own = members(checker, type, at, '  ');
      if (own.length === 0) return [`${head}: ${checker.typeToString(type, at, FLAGS)}`];
      const calls = type.getCallSignatures().map((sig) => `  ${checker.signatureToString(sig, at, FLAGS)}`);
      return [head, ...calls, ...own];
    }
    case 'const':
      return [`${head}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, at), at, FLAGS)}`];
    case 'type':
      return [`${head} = ${checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), at, FLAGS | ts.TypeFormatFlags.InTypeAlias)}`];
    case 'interface':
      return [head, ...members(checker, checker.getDeclaredTypeOfSymbol(symbol), at, '  ')];
    case 'class': {
      const statics = checker.getTypeOfSymbolAtLocation(symbol, at);
      const ctors = statics.getConstructSignatures().map((s) => `  constructor${checker.signatureToString(s, at, FLAGS)}`);
      const own = members(checker, statics, at, '  static ').filter((l) => !l.startsWith('  static prototype'));
      const base = checker.getDeclaredTypeOfSymbol(symbol).getBaseTypes() ?? [];
      const ext = base.length > 0 ? ` extends ${base.map((b) => checker.typeToString(b, at, FLAGS)).join(', ')}` : '';
      return [`${head}${ext}`, ...ctors, ...own, ...members(checker, checker.getDeclaredTypeOfSymbol(symbol), at, '  ')];
    }
    default:
      return [`${head}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, at), at, FLAGS)}`];
  }
}

/** The report text of one entry point, as it is checked in. */
export function reportOf(program: ts.Program, root: string, entry: ApiEntryPoint): string {
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(join(root, entry.source));
  const moduleSymbol = sf === undefined ? undefined : checker.getSymbolAtLocation(sf);
  if (sf === undefined || moduleSymbol === undefined) throw new Error(`${entry.source}: not a module in the program`);
  const exports = [...checker.getExportsOfModule(moduleSymbol)].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lines = exports.flatMap((exported) => {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const typeOnly = exported.declarations?.some((d) => ts.isTypeOnlyImportOrExportDeclaration(d)) ?? false;
    const described = describeSymbol(checker, exported.name, symbol, sf);
    // `export type { SomeClass }` exposes the type only: say so, it is a different promise.
    return typeOnly && (symbol.flags & ts.SymbolFlags.Value) !== 0 ? described.map((l, i) => (i === 0 ? `type-only ${l}` : l)) : described;
  });
  // A type the checker cannot name from the entry point prints as import("/abs/path").Name: keep the name only.
  const portable = lines.map((l) => l.replace(/import\("[^"]*"\)\./g, ''));
  return [
    `# API report: \`${entry.specifier}\``,
    '',
    `Generated from \`${entry.source}\` by \`npm run api:update\` (scripts/api-report.ts); do not edit by hand.`,
    `A change here is a change to the public API: review it, and note it in CHANGELOG.md. ${exports.length} exports.`,
    '',
    '```ts',
    ...portable,
    '```',
    '',
  ].join('\n');
}

/** A program over the entry points with the project's compiler options. */
export function apiProgram(root: string): ts.Program {
  const configPath = join(root, 'tsconfig.json');
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, root);
  return ts.createProgram({ rootNames: entryPoints.map((e) => join(root, e.source)), options: { ...parsed.options, noEmit: true } });
}

/** Every report, keyed by its project-relative path. */
export function apiReports(root: string): Map<string, string> {
  const program = apiProgram(root);
  return new Map(entryPoints.map((e) => [e.report, reportOf(program, root, e)]));
}

/** Lines only in `expected` (-) or only in `actual` (+), in order: enough to review a surface change. */
export function lineDiff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const inA = new Set(a);
  const inB = new Set(b);
  return [...a.filter((l) => !inB.has(l)).map((l) => `- ${l}`), ...b.filter((l) => !inA.has(l)).map((l) => `+ ${l}`)].join('\n');
}

/** The frozen copy of a report, written at a release: `api/x.api.md` -> `api/released/x.api.md`. */
export const releasedPath = (report: string): string => report.replace(/^api\//, 'api/released/');

/** The first line of a released report, naming the version it was frozen at. */
export const releasedHeading = (version: string): string => `Released in ${version}: the contract later changes are measured against.`;

/** The version a released report names (see {@link releasedHeading}), if any. */
export const releasedVersion = (text: string): string | undefined => /^Released in (\S+):/m.exec(text)?.[1];

const EXPORT_LINE = /^(?:type-only )?(?:class|interface|type|function|const|enum|other) ([A-Za-z_$][\w$]*)/;

/** Each exported name of a report with its lines (the export's own line and its members), in report order. */
export function exportBlocks(report: string): Map<string, string> {
  const blocks = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of report.split('\n')) {
    const name = EXPORT_LINE.exec(line)?.[1];
    if (name !== undefined) {
      current = [line];
      blocks.set(name, current);
    } else if (current !== undefined && line.startsWith('  ')) {
      current.push(line);
    } else {
      current = undefined;
    }
  }
  return new Map([...blocks].map(([name, lines]) => [name, lines.join('\n')]));
}

/** Names added, removed, or whose lines differ between two reports, sorted. */
export function changedExports(released: string, current: string): string[] {
  const before = exportBlocks(released);
  const after = exportBlocks(current);
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
}

function write(root: string, path: string, text: string): void {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  let before = '';
  try {
    before = readFileSync(full, 'utf8');
  } catch {
    // First run: no report yet.
  }
  writeFileSync(full, text);
  process.stdout.write(`${path}: ${before === text ? 'unchanged' : 'updated'}\n`);
}

function main(release: boolean): void {
  const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  for (const [path, text] of apiReports(root)) {
    write(root, path, text);
    if (release) write(root, releasedPath(path), `${releasedHeading(version)}\n\n${text}`);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.includes('--release'));
