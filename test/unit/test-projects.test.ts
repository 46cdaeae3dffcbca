/**
 * `npm run test:unit` runs the unit project only, `npm test` all of them: a test file
 * in neither would silently never run, one in both would run twice.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkDirs, integrationDirs, propertyTestsOnDynamoDB, slowFiles, unitDirs } from '../../vitest.config.js';
import { walk } from '../support/doc-examples.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

function projectsOf(file: string): string[] {
  const under = (dirs: readonly string[]): boolean => dirs.some((d) => file.startsWith(`${d}/`));
  const onDynamoDB = (propertyTestsOnDynamoDB as readonly string[]).includes(file);
  return [
    ...(under(unitDirs) && !onDynamoDB ? ['unit'] : []),
    ...(under(checkDirs) ? ['checks'] : []),
    ...(under(integrationDirs) || onDynamoDB ? ['integration'] : []),
  ];
}

describe('vitest projects', () => {
  const files = walk(`${root}/test`, '.test.ts').map((p) => p.slice(root.length + 1));

  it('finds the test files', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files).toContain('test/unit/test-projects.test.ts');
  });

  it('puts every test file in exactly one project', () => {
    expect(files.filter((f) => projectsOf(f).length !== 1).map((f) => `${f}: ${projectsOf(f).join(', ') || 'none'}`)).toEqual([]);
  });

  it('lists only property tests that exist', () => {
    expect(propertyTestsOnDynamoDB.filter((f) => !files.includes(f))).toEqual([]);
  });

  it('starts first only files that exist (a renamed slow file would silently go back to the end)', () => {
    expect(slowFiles.filter((f) => !files.includes(f))).toEqual([]);
  });
});
