/**
 * The import graph of src/ and what is wrong with its shape: imports that point up the layers, circles
 * (strongly connected components of files, and of folders), and folder pairs that import each other.
 * test/unit/architecture/imports.test.ts holds these at zero (with an allowlist that only shrinks);
 * `npx tsx scripts/import-graph.ts` prints them.
 *
 * Every relative module specifier counts: `import` and `export ... from`, type-only ones included (a type
 * import ties two files' shapes together as much as a value import does), `import('./x.js')` expressions and
 * `typeof import('./x.js')` types.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The layers, bottom first: a file may import from its own layer or any below it. A path's layer is its
 * longest matching prefix. `batch/strategies/` and `transaction/` are where the strategies were at 50a8660
 * (the before figures of issue 32 were taken with them): `batch/strategies/` a strategy, the rest of `batch/`
 * the lifecycle.
 */
export const LAYERS: readonly (readonly [layer: string, prefixes: readonly string[]])[] = [
  ['engine', ['engine/']],
  ['stores, observe', ['stores/', 'observe/']],
  ['strategies', ['strategies/', 'batch/strategies/', 'transaction/']],
  ['lifecycle', ['lifecycle/', 'batch/']],
  ['sources', ['sources/']],
  ['entries', ['index.ts', 'testing/', 'tracing/', 'powertools/']],
];

/** A file's layer (its index in LAYERS), by its path relative to src/. */
export function layerOf(file: string): number {
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach(([, prefixes], index) => {
    for (const prefix of prefixes) {
      if (file.startsWith(prefix) && prefix.length > bestLength) {
        best = index;
        bestLength = prefix.length;
      }
    }
  });
  if (best === -1) throw new Error(`src/${file} is in no layer: add its folder to LAYERS in scripts/import-graph.ts`);
  return best;
}

/** A file's folder: its top folder under src/ (`strategies` for strategies/claim/claim.ts; `.` for src/index.ts). */
export const folderOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '.');

function sourceFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, path);
    return entry.name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

function specifiers(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteral(argument)) found.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every file under `srcDir` (relative to it) and the src files each imports. */
export function importGraph(srcDir: string): Map<string, Set<string>> {
  const root = resolve(srcDir);
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const targets = new Set<string>();
    for (const specifier of specifiers(join(root, file))) {
      if (!specifier.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts');
      if (!target.startsWith('..')) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one member: the circles. */
export function circles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return found.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

/** The folders' graph: folder A imports folder B when one of A's files imports one of B's. */
export function folderGraph(graph: ReadonlyMap<string, ReadonlySet<string>>): Map<string, Set<string>> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const edges = folders.get(from) ?? new Set<string>();
    folders.set(from, edges);
    for (const target of targets) if (folderOf(target) !== from) edges.add(folderOf(target));
  }
  return folders;
}

export interface Shape {
  readonly files: number;
  /** `from -> to` for every import from a lower layer to a higher one. */
  readonly upward: readonly string[];
  readonly fileCircles: readonly (readonly string[])[];
  readonly folderCircles: readonly (readonly string[])[];
  /** `a <-> b` for every two folders importing each other (a < b). */
  readonly mutualFolders: readonly string[];
}

export function shapeOf(srcDir: string): Shape {
  const graph = importGraph(srcDir);
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) if (layerOf(target) > layerOf(file)) upward.push(`${file} -> ${target}`);
  }
  const folders = folderGraph(graph);
  const mutualFolders: string[] = [];
  for (const [from, targets] of folders) {
    for (const to of targets) if (from < to && folders.get(to)?.has(from)) mutualFolders.push(`${from} <-> ${to}`);
  }
  return {
    files: graph.size,
    upward: upward.sort(),
    fileCircles: circles(graph),
    folderCircles: circles(folders),
    mutualFolders: mutualFolders.sort(),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const shape = shapeOf(process.argv[2] ?? 'src');
  const list = (title: string, lines: readonly string[]): void => {
    console.log(`${title}: ${lines.length}`);
    for (const line of lines) console.log(`  ${line}`);
  };
  console.log(`files: ${shape.files}`);
  list('upward imports', shape.upward);
  list(
    'file circles',
    shape.fileCircles.map((c) => c.join(' , ')),
  );
  list(
    'folder circles',
    shape.folderCircles.map((c) => c.join(' , ')),
  );
  list('folder pairs importing each other', shape.mutualFolders);
}
