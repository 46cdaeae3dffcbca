/**
 * The public surface is checked in (api/*.api.md): a change to it must show
 * in review. This fails, with the lines that changed, when an export is added,
 * removed or its type changes without `npm run api:update`. And the surface
 * of the last release (api/released/*.api.md, frozen by `npm run api:release`)
 * is the contract: every export whose lines differ from it is named in
 * CHANGELOG.md's Unreleased section.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  apiReports,
  changedExports,
  entryPoints,
  exportBlocks,
  lineDiff,
  releasedHeading,
  releasedPath,
  releasedVersion,
} from '../../scripts/api-report.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

function checkedIn(path: string): string {
  try {
    return readFileSync(join(root, path), 'utf8');
  } catch {
    return '';
  }
}

describe('API report', () => {
  const reports = apiReports(root);

  it('covers every entry point', () => {
    expect([...reports.keys()]).toEqual([
      'api/effectively-once.api.md',
      'api/testing.api.md',
      'api/tracing.api.md',
      'api/powertools.api.md',
    ]);
  });

  for (const [path, actual] of reports) {
    it(`${path} matches the public surface (run \`npm run api:update\` and review the diff if the change is meant)`, () => {
      const diff = lineDiff(checkedIn(path), actual);
      expect(diff, `public API of ${path} changed:\n${diff}`).toBe('');
      expect(actual).toBe(checkedIn(path));
    });
  }

  it('lists internals no more (removed from the public API in issue 11)', () => {
    const all = [...reports.values()].join('\n');
    for (const name of [
      'sqsDefaults',
      'eventBridgeDefaults',
      'testingDefaults',
      'itemIdentity',
      'projectKey',
      'summarize',
      'md5Hex',
      'ItemRef',
    ]) {
      expect(all).not.toMatch(new RegExp(`^(const|function|interface|type) ${name}\\b`, 'm'));
    }
  });

  it('keeps each entry point within its budget (at most 60 names in the main entry, 35 in /testing)', () => {
    const count = (path: string): number => Number(/ (\d+) exports\./.exec(reports.get(path) ?? '')?.[1] ?? Number.NaN);
    expect(count('api/effectively-once.api.md')).toBeLessThanOrEqual(60);
    expect(count('api/testing.api.md')).toBeLessThanOrEqual(35);
  });

  it('reports a surface change as a readable diff', () => {
    expect(lineDiff('a\nb\nc', 'a\nc\nd')).toBe('- b\n+ d');
  });
});

/** The text of CHANGELOG.md's `## heading` section, without its heading ('' when there is none). */
function changelogSection(heading: string): string {
  const lines = checkedIn('CHANGELOG.md').split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start === -1) return '';
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

describe('the released API is the contract', () => {
  const { version } = JSON.parse(checkedIn('package.json')) as { version: string };
  const unreleased = changelogSection('Unreleased');

  it('CHANGELOG.md has an Unreleased section for the changes since the release', () => {
    expect(checkedIn('CHANGELOG.md')).toMatch(/^## Unreleased$/m);
  });

  for (const { report } of entryPoints) {
    const frozen = releasedPath(report);

    it(`${frozen} is the report of the release package.json names (\`npm run api:release\` at a release)`, () => {
      expect(checkedIn(frozen), `${frozen} is missing`).not.toBe('');
      expect(releasedVersion(checkedIn(frozen))).toBe(version);
    });

    it(`every export of ${report} that changed since ${frozen} is named in CHANGELOG.md's Unreleased section`, () => {
      const changed = changedExports(checkedIn(frozen), checkedIn(report));
      const unnamed = changed.filter((name) => !new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(unreleased));
      expect(
        unnamed,
        `changed since ${version}, not named under "## Unreleased" in CHANGELOG.md: add a line for each (what changed, before → after code)`,
      ).toEqual([]);
    });
  }

  it('tells a changed export by its own lines: a member, a signature, an added or a removed name', () => {
    const released = ['```ts', 'interface A', '  readonly x: number', 'function b: () => void', 'const c: 1', '```'].join('\n');
    const current = ['```ts', 'interface A', '  readonly x: string', 'function b: () => void', 'function d: () => void', '```'].join('\n');
    expect([...exportBlocks(released).keys()]).toEqual(['A', 'b', 'c']);
    expect(changedExports(released, current)).toEqual(['A', 'c', 'd']);
    expect(changedExports(released, released)).toEqual([]);
    expect(releasedVersion(`${releasedHeading('1.2.3-rc.4')}\n\n${released}`)).toBe('1.2.3-rc.4');
  });
});
