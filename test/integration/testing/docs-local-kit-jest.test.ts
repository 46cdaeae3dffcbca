/**
 * docs/testing.md's "Against DynamoDB Local", its **Jest** paragraph,
 * replayed on the packed package in a fresh project as docs-local-kit.test.ts
 * replays the Vitest steps: the packages of the doc's `npm install` lines and
 * of the Jest paragraph's, the README handler, the Jest paragraph's `file=`
 * blocks as they are, `handler.test.ts` made from the Vitest one by the
 * substitutions the paragraph names, then the paragraph's command as it is.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, fencedBlocks, installedBy, localKitDoc, runIn, shellLines } from '../../support/consumer-project.js';
import { alive, answers, dynamoDBLocalJvms } from '../../support/processes.js';

const [vitestSteps = '', jestAndAfter = ''] = localKitDoc.split('\n**Jest.**');
/** From **Jest.** to the end of the line that says how to run it. */
const jestSteps = /^[\s\S]*?npx jest`[^\n]*\n/.exec(jestAndAfter)?.[0] ?? '';
/** Its `npm install ...` (inline code in the paragraph), and `Run it with `...``. */
const jestInstall = /`(npm install [^`]+)`/.exec(jestSteps)?.[1] ?? '';
const jestCommand = /Run it with\s+`([^`]+)`/.exec(jestSteps)?.[1] ?? '';

/** The doc's Vitest `handler.test.ts`, with the import and the calls the Jest paragraph says to replace. */
function jestHandlerTest(): string {
  const vitestTest = fencedBlocks(vitestSteps, 'ts').find((b) => /file=handler\.test\.ts\b/.test(b.info))?.body ?? '';
  const importLine = /with its `vitest` import replaced by\s+`([^`]+)`/.exec(jestSteps)?.[1];
  const calls = /\)\s+and\s+`([^`]+)`\s+by\s+`([^`]+)`/.exec(jestSteps);
  if (importLine === undefined || calls?.[1] === undefined || calls[2] === undefined) return '';
  return vitestTest.replace(/^import .* from 'vitest';$/m, importLine).replaceAll(calls[1], calls[2]);
}

describe.skipIf(process.platform !== 'linux')('docs/testing.md, Against DynamoDB Local with Jest, on the packed package', () => {
  let project = '';

  beforeAll(() => {
    project = consumerProject({
      prefix: 'effectively-once-jest-consumer-',
      packages: installedBy([...shellLines(vitestSteps), jestInstall]),
      bins: ['effectively-once', 'jest'],
      markdown: jestSteps,
      langs: ['js', 'ts'],
    });
    writeFileSync(join(project, 'handler.test.ts'), jestHandlerTest());
  }, 120_000);

  afterAll(() => {
    if (project !== '') rmSync(project, { recursive: true, force: true });
  });

  it('takes the Jest files from the doc, and the test from the Vitest one with the named substitutions', () => {
    expect(installedBy([jestInstall])).toEqual(['jest', '@jest/globals', '@swc/jest', '@swc/core']);
    expect(jestCommand).toBe('NODE_OPTIONS=--experimental-vm-modules npx jest');
    expect(readFileSync(join(project, 'jest.config.js'), 'utf8')).toContain("globalSetup: './jest-global-setup.ts'");
    expect(readFileSync(join(project, 'jest-global-teardown.ts'), 'utf8')).toContain('dynamoDBLocal?.stop()');
    const test = readFileSync(join(project, 'handler.test.ts'), 'utf8');
    expect(test).toContain("import { afterAll, expect, it, jest } from '@jest/globals';\n");
    expect(test).toContain("const log = jest.spyOn(console, 'log');");
    expect(test).not.toMatch(/vitest|\bvi\./);
  });

  it('passes the doc command: DynamoDB Local started by the global setup, stopped by the teardown', async () => {
    // The same node as this run's (npx and jest start whichever `node` comes first on PATH).
    const path = `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`;
    const seen = new Map<number, number>();
    const watch = setInterval(() => {
      for (const { pid, port } of dynamoDBLocalJvms(project)) seen.set(pid, port);
    }, 100);
    const result = await runIn(project, 'sh', ['-c', jestCommand], { path }).finally(() => clearInterval(watch));
    expect(result.output).toMatch(/Tests:\s+1 passed, 1 total/);
    expect(result.output).toContain('✓ sends each notification once, retries only the bad record, acknowledges a redelivery');
    expect(result.code).toBe(0);
    // The handler's effect, through Jest's console (the spy passes calls on): the email went out once.
    expect(result.output.match(/^ +sending .*$/gm)).toEqual(['    sending ann@example.com hello n-1']);
    // One JVM ran, and nothing of it is left: no process, nothing on its port.
    expect(seen.size).toBe(1);
    for (const [pid, port] of seen) {
      expect(alive(pid)).toBe(false);
      expect(await answers(port)).toBe(false);
    }
  }, 60_000);
});
