/**
 * The README stays short (CONTRIBUTING.md, "Documentation"): what the library is, the install, one example per
 * strategy, the local run and a table of pages. Detail goes to docs/, each page linked from that table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const README_MAX_LINES = 300;

describe('the README', () => {
  it(`is at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(import.meta.dirname, '../..', 'README.md'), 'utf8')
      .replace(/\n$/, '')
      .split('\n');
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
  });
});
