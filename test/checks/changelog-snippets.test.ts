/**
 * The CHANGELOG's upgrade guide works: every "after" snippet of the sections of this major version (1.0.0-rc.1
 * and later, and Unreleased) type-checks against the package as a user installs it (built and packed as
 * `npm pack` makes it, linked as node_modules/effectively-once, its `exports` and declarations, not src/), under
 * the project's strict settings. A "before" snippet, the code being replaced, is fenced ```ts before and not
 * compiled (```ts no-check likewise, for a fragment); each is followed by its after snippet in the same entry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileExamples, fencedBlocks, type CompiledExamples, type Example } from '../support/doc-examples.js';
import { packedPackage, repoRoot } from '../support/packed.js';

const FILE = 'CHANGELOG.md';
const lines = readFileSync(join(repoRoot, FILE), 'utf8').split(/\r?\n/);
const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const major = version.split('.')[0] ?? '';

/** A `## heading` section: its heading and lines, `start` the 0-based index of its first line after the heading. */
interface Section {
  readonly heading: string;
  readonly start: number;
  readonly lines: readonly string[];
}

function sections(): Section[] {
  const starts = lines.flatMap((line, i) => (line.startsWith('## ') ? [i] : []));
  return starts.map((at, n) => ({ heading: (lines[at] ?? '').slice(3).trim(), start: at + 1, lines: lines.slice(at + 1, starts[n + 1]) }));
}

/** Unreleased, and every release of the package's major version: code written for one still compiles on the others. */
const checked = sections().filter((s) => s.heading === 'Unreleased' || s.heading.startsWith(`${major}.`));

/** The compiled ("after") snippets of a section, each with the CHANGELOG line it starts at. */
function afterSnippets(section: Section): Example[] {
  return fencedBlocks(section.lines, section.start + 1).map((b) => ({ file: FILE, ...b, baseDir: repoRoot }));
}

/** ```ts before blocks with no after block in the same entry (before the next bullet, heading or before block). */
function unpairedBefores(section: Section): number[] {
  const unpaired: number[] = [];
  let pending: number | undefined;
  let fence: string | undefined;
  section.lines.forEach((line, i) => {
    const at = section.start + i + 1;
    if (fence !== undefined) {
      if (line.trim() === fence) fence = undefined;
      return;
    }
    const open = /^\s*(```+)\s*(ts|typescript)?\b\s*(.*)$/.exec(line);
    if (open !== null) {
      fence = open[1];
      if (open[2] === undefined) return;
      const info = open[3] ?? '';
      if (/(?:^|\s)before(?:\s|$)/.test(info)) {
        if (pending !== undefined) unpaired.push(pending);
        pending = at;
      } else if (!/(?:^|\s)no-check(?:\s|$)/.test(info)) {
        pending = undefined;
      }
      return;
    }
    if (pending !== undefined && (/^- /.test(line) || line.startsWith('#'))) {
      unpaired.push(pending);
      pending = undefined;
    }
  });
  return pending === undefined ? unpaired : [...unpaired, pending];
}

describe(`${FILE}: the upgrade guide of ${major}.x`, () => {
  let compiled: CompiledExamples;
  const snippets = checked.flatMap(afterSnippets);

  beforeAll(() => {
    compiled = compileExamples(repoRoot, snippets, [], { packageDir: packedPackage() });
  });

  it(`has an Unreleased section and the ${version} section, with before → after code (guards against a broken extractor)`, () => {
    expect(checked.map((s) => s.heading)).toEqual(expect.arrayContaining(['Unreleased', version]));
    const release = checked.find((s) => s.heading === version);
    expect(release === undefined ? 0 : afterSnippets(release).length).toBeGreaterThanOrEqual(30);
    expect(release?.lines.filter((l) => /^\s*```ts before\b/.test(l)).length ?? 0).toBeGreaterThanOrEqual(20);
  });

  it('every ```ts before snippet is followed by its after snippet in the same entry', () => {
    expect(checked.flatMap((s) => unpairedBefores(s).map((line) => `${FILE}:${line}`))).toEqual([]);
  });

  it('a "### Renamed for 1.0" section, where there is one, shows the after code of its renames', () => {
    const renamed = checked.flatMap((s) => {
      const at = s.lines.indexOf('### Renamed for 1.0');
      if (at === -1) return [];
      const end = s.lines.findIndex((l, i) => i > at && l.startsWith('### '));
      return [{ heading: 'Renamed for 1.0', start: s.start + at + 1, lines: s.lines.slice(at + 1, end === -1 ? undefined : end) }];
    });
    for (const section of renamed) expect(afterSnippets(section).length).toBeGreaterThan(0);
  });

  it('every after snippet type-checks against the built package (effectively-once and effectively-once/testing)', () => {
    expect(compiled.failures.join('\n\n'), `${compiled.failures.length} of ${snippets.length} snippets fail`).toBe('');
  });
});
