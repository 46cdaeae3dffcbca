/**
 * `npm test` type-checks the whole project (src, tests, scripts, bench, functions) with tsc, as
 * `npm run typecheck` does, but as one file of the checks project: vitest runs it beside the other
 * tests instead of before them, so tsc's single thread no longer leaves the second core idle.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function typecheck(): Promise<{ readonly code: number | null; readonly output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit', '--pretty', 'false'], { cwd: root });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

describe('typecheck', () => {
  it('tsc -p tsconfig.json --noEmit reports no error (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess)', async () => {
    const { code, output } = await typecheck();
    expect(output.trim(), 'tsc diagnostics').toBe('');
    expect(code).toBe(0);
  }, 240_000);
});
