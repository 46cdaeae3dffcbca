/**
 * `npm test` and `npm run test:unit` write no ANSI colour codes when their output is not a terminal (a CI log, a
 * file, a pipe): Vitest's colours (tinyrainbow) are on whenever TERM is not `dumb`, terminal or not. Each script's
 * Vitest command is run as package.json has it, on one small file, with its output piped.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const scripts = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The environment of a terminal user, without what this run itself sets (Vitest's own variables, colour switches). */
function userEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(VITEST|NO_COLOR$|FORCE_COLOR$|CI$|NODE_DISABLE_COLORS$)/.test(name)),
  );
  return { ...env, TERM: 'xterm-256color', PATH: `${root}node_modules/.bin:${process.env['PATH']}` };
}

describe('the test scripts, piped', () => {
  it.each(['test', 'test:unit'])(
    'npm run %s: no colour codes',
    (name) => {
      // `npm test` is `npm run lint && <the Vitest command>`: the part that runs Vitest.
      const command = (scripts[name] ?? '').split('&&').at(-1)?.trim() ?? '';
      expect(command).toMatch(/vitest/);
      const run = spawnSync(`${command} test/unit/infra/redis-install-plan.test.ts`, {
        cwd: root,
        shell: true,
        env: userEnv(),
        encoding: 'utf8',
      });
      expect(`${run.stdout}${run.stderr}`).not.toContain('\u001b[');
      expect(run.status, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toMatch(/Tests\s+4 passed/);
    },
    60_000,
  );
});
