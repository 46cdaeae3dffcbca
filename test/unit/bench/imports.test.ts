import { describe, expect, it } from 'vitest';
import { circles, folderGraph, importGraph } from '../../../scripts/import-graph.js';

/**
 * bench/ imports one way: no circle of files (type-only imports count, as in src/), and no two folders
 * importing each other. It had a circle of eight files (args, variants, contenders, dynamo, workload, effects,
 * fencing, results) before the workload and the results stopped importing the option parser and each other;
 * and the root and lambda/ imported each other until the entry (main/) left the root and the CPU groups and
 * the Lambda-like process start (cgroup.ts, lambda-runtime.ts), which the root's cold start needs, left lambda/.
 */
describe('the shape of bench/', () => {
  const graph = importGraph('bench');
  const folders = folderGraph(graph);

  it('has no circle of files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has no two folders importing each other, and no circle of folders', () => {
    const mutual = [...folders].flatMap(([from, targets]) =>
      [...targets].filter((to) => from < to && folders.get(to)?.has(from)).map((to) => `${from} <-> ${to}`),
    );
    expect(mutual).toEqual([]);
    expect(circles(folders)).toEqual([]);
  });

  it('sees every file and folder of bench/ and their imports (the graphs are not empty by mistake)', () => {
    expect(graph.size).toBeGreaterThan(40);
    expect(graph.get('main/run.ts')).toContain('main/output.ts');
    expect(graph.get('lambda/lmi.ts')).toContain('variants.ts');
    // The folders' edges the layering is made of: the entry on top, lambda/ on the shared modules.
    expect(folders.get('main')).toEqual(new Set(['.', 'lambda']));
    expect(folders.get('lambda')).toEqual(new Set(['.']));
  });
});
