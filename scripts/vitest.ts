/**
 * `npm test` and `npm run test:unit`: Vitest with its arguments, without colour codes when stdout is not a
 * terminal (a CI log, a file, a pipe). Vitest's colours (tinyrainbow) are on whenever TERM is not `dumb`,
 * terminal or not, and are decided when Vitest is imported, before its config is read: so NO_COLOR is set
 * here, for Vitest and its workers. `FORCE_COLOR` or `NO_COLOR` set by the user is left as it is.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const vitestBin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const plain = !process.stdout.isTTY && !('FORCE_COLOR' in process.env) && !('NO_COLOR' in process.env);
const child = spawn(process.execPath, [vitestBin, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: plain ? { ...process.env, NO_COLOR: '1' } : process.env,
});
// Ctrl-C reaches Vitest too (one process group): let it stop its servers and report, then end as it ended.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => {});
child.on('exit', (code, signal) => {
  if (signal === null) {
    process.exitCode = code ?? 1;
    return;
  }
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
});
