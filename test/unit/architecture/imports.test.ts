import { describe, expect, it } from 'vitest';
import { LAYERS, shapeOf } from '../../../scripts/import-graph.js';

/**
 * Imports in src/ point down the layers (scripts/import-graph.ts: engine < stores, observe < strategies <
 * lifecycle < sources < entries), with no circles of files or of folders, and at most two top folders
 * importing each other (issue 32's target). At 50a8660: 41 upward imports, 2 circles of files, 1 of folders,
 * 8 folder pairs importing each other.
 */
const MAX_MUTUAL_FOLDERS = 2;

const shape = shapeOf('src');

describe('the shape of src/', () => {
  it('has no import that points up a layer (src/engine imports nothing from another folder)', () => {
    expect(shape.upward).toEqual([]);
  });

  it('has no circle of files or of folders', () => {
    expect(shape.fileCircles).toEqual([]);
    expect(shape.folderCircles).toEqual([]);
  });

  it(`has at most ${MAX_MUTUAL_FOLDERS} pairs of folders importing each other`, () => {
    expect(shape.mutualFolders.length, shape.mutualFolders.join('\n')).toBeLessThanOrEqual(MAX_MUTUAL_FOLDERS);
  });

  it('sees every file of src/, each in a layer (the graph is not empty by mistake)', () => {
    expect(shape.files).toBeGreaterThan(100);
    expect(LAYERS[0]?.[1]).toEqual(['engine/']);
  });
});
