/**
 * A user pinning `^0.1.0` must not get a changed API under the same number:
 * package.json's version is the newest CHANGELOG.md section's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const repo = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the release version', () => {
  it("is package.json's version and the newest CHANGELOG.md heading's", () => {
    const { version } = JSON.parse(repo('package.json')) as { version: string };
    const newest = /^## (?:Unreleased \()?(\d+\.\d+\.\d+[^)\s]*)\)?\s*$/m.exec(repo('CHANGELOG.md'))?.[1];
    expect(newest).toBe(version);
  });
});
