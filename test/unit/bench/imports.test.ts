import { describe, expect, it } from 'vitest';
import { circles, importGraph } from '../../../scripts/import-graph.js';

/**
 * bench/ imports one way: no circle of files (type-only imports count, as in src/). It had one of eight
 * files (args, variants, contenders, dynamo, workload, effects, fencing, results) before the workload and
 * the results stopped importing the option parser and each other.
 */
describe('the shape of bench/', () => {
  const graph = importGraph('bench');

  it('has no circle of files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('sees every file of bench/ and its imports (the graph is not empty by mistake)', () => {
    expect(graph.size).toBeGreaterThan(40);
    expect(graph.get('run.ts')).toContain('output.ts');
    expect(graph.get('lambda/lmi.ts')).toContain('variants.ts');
  });
});
