/**
 * The public surface is checked in (api/*.api.md): a change to it must show
 * in review. This fails, with the lines that changed, when an export is added,
 * removed or its type changes without `npm run api:update`.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiReports, lineDiff } from '../../scripts/api-report.js';

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
    expect([...reports.keys()]).toEqual(['api/effectively-once.api.md', 'api/testing.api.md', 'api/powertools.api.md']);
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

  it('keeps each entry point within its budget (the redesign issue: at most 60 names in the main entry, 40 in /testing)', () => {
    const count = (path: string): number => Number(/ (\d+) exports\./.exec(reports.get(path) ?? '')?.[1] ?? Number.NaN);
    expect(count('api/effectively-once.api.md')).toBeLessThanOrEqual(60);
    expect(count('api/testing.api.md')).toBeLessThanOrEqual(40);
  });

  it('reports a surface change as a readable diff', () => {
    expect(lineDiff('a\nb\nc', 'a\nc\nd')).toBe('- b\n+ d');
  });
});
