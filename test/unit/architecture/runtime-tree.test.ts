import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { walk } from '../../support/doc-examples.js';

/**
 * src/ is what the library's entries ship and nothing else: the operator CLI lives in cli/ (bundled into
 * dist/cli/main.js by scripts/build-cli.ts) and may import src/, never the other way round. Every relative
 * specifier of src/ (static, type-only and dynamic imports alike) must stay inside src/.
 */
const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

function relativeImports(dir: string): { file: string; target: string }[] {
  return walk(join(root, dir), '.ts').flatMap((path) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
    return importedFiles
      .map((f) => f.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({ file: relative(root, path), target: relative(root, resolve(dirname(path), specifier)) }));
  });
}

describe('the runtime tree', () => {
  it('src/ imports nothing outside src/ (in particular nothing of cli/)', () => {
    const imports = relativeImports('src');
    expect(imports.length).toBeGreaterThan(300); // the walk found the library's imports
    expect(imports.filter(({ target }) => !target.startsWith('src/')).map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('cli/ imports the library from src/ (control: the check above can see a crossing)', () => {
    expect(relativeImports('cli').filter(({ target }) => target.startsWith('src/')).length).toBeGreaterThan(0);
  });
});
