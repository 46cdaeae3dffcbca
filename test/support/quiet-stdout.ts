/**
 * Every test file's setup (vitest.config.ts `setupFiles`). The library's
 * default EMF writer writes each document straight to `process.stdout`
 * (Lambda's log agent reads the raw line; `console.log` would prefix it),
 * and vitest captures only the console: every batch a test ran with the
 * default metrics printed a JSON document, about 800 lines per `npm test`.
 * Here an EMF document written to stdout is held back, and printed (through
 * the console, so vitest shows it with the test) only if its test fails.
 * Anything else written to stdout is written as before. Tests that check
 * the metrics capture them (an `emit` of their own, or a spy on
 * process.stdout.write, as test/integration/metrics.test.ts does, which
 * sees each write before this does).
 */
import { beforeEach } from 'vitest';

const HELD = Symbol.for('effectively-once: EMF documents held back from stdout');

type Stdout = typeof process.stdout & { [HELD]?: string[] };

/** Whether a chunk written to stdout is one EMF document (the default writer writes one per call). */
function isEmfLine(chunk: unknown): chunk is string {
  return typeof chunk === 'string' && chunk.startsWith('{') && chunk.includes('"_aws":{"Timestamp"');
}

// Unit and integration files share one module graph per worker (isolate: false): patch once per process.
const stdout: Stdout = process.stdout;
const held: string[] = stdout[HELD] ?? [];
if (stdout[HELD] === undefined) {
  const write = stdout.write.bind(stdout) as (...args: unknown[]) => boolean;
  stdout.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
    if (!isEmfLine(chunk)) return write(chunk, ...rest);
    held.push(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk);
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof stdout.write;
  stdout[HELD] = held;
}

beforeEach(({ onTestFailed }) => {
  held.length = 0;
  onTestFailed(() => {
    for (const line of held.splice(0)) console.log(line);
  });
});
