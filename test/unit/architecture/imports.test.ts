import { describe, expect, it } from 'vitest';
import { shapeOf } from '../../../scripts/import-graph.js';

/**
 * Imports in src/ point down the layers (scripts/import-graph.ts: engine < stores, observe < strategies <
 * lifecycle < sources < entries), with no circles, and at most two top folders importing each other.
 * The allowlists hold what is still wrong; an entry that is no longer found fails too, so they only shrink.
 */
const allowedUpward: readonly string[] = [
  'batch/each-record.ts -> sources/event-sources.ts',
  'batch/each-record.ts -> sources/kafka.ts',
  'event/idempotent.ts -> sources/eventbridge.ts',
  'stores/dynamodb/commit.ts -> strategies/transaction/group-commit/duplicate-probe.ts',
  'stores/dynamodb/outbox-keys.ts -> strategies/transaction/outbox/item.ts',
];
const allowedFileCircles: readonly string[] = ['strategies/transaction/builder.ts , strategies/transaction/options.ts'];
const allowedFolderCircles: readonly string[] = ['batch , event , sources', 'stores , strategies'];
const allowedMutualFolders: readonly string[] = ['batch <-> sources', 'event <-> sources', 'stores <-> strategies'];
const MAX_MUTUAL_FOLDERS = 2;

const shape = shapeOf('src');

describe('the shape of src/', () => {
  it('has no import that points up a layer, beyond the allowlist', () => {
    expect(shape.upward.filter((edge) => !allowedUpward.includes(edge))).toEqual([]);
    expect(allowedUpward.filter((edge) => !shape.upward.includes(edge))).toEqual([]);
  });

  it('has no circle of files or of folders, beyond the allowlist', () => {
    const files = shape.fileCircles.map((circle) => circle.join(' , '));
    const folders = shape.folderCircles.map((circle) => circle.join(' , '));
    expect(files.filter((circle) => !allowedFileCircles.includes(circle))).toEqual([]);
    expect(allowedFileCircles.filter((circle) => !files.includes(circle))).toEqual([]);
    expect(folders.filter((circle) => !allowedFolderCircles.includes(circle))).toEqual([]);
    expect(allowedFolderCircles.filter((circle) => !folders.includes(circle))).toEqual([]);
  });

  it(`has at most ${MAX_MUTUAL_FOLDERS} pairs of folders importing each other, beyond the allowlist`, () => {
    const beyond = shape.mutualFolders.filter((pair) => !allowedMutualFolders.includes(pair));
    expect(beyond.length, beyond.join('\n')).toBeLessThanOrEqual(MAX_MUTUAL_FOLDERS);
    expect(allowedMutualFolders.filter((pair) => !shape.mutualFolders.includes(pair))).toEqual([]);
  });

  it('sees every file of src/ (the graph is not empty by mistake)', () => {
    expect(shape.files).toBeGreaterThan(50);
  });
});
