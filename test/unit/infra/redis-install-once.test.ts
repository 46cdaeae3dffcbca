/**
 * A missing redis-server is installed, and announced, once per process however many callers ask for it at once.
 * redis-server stays installed on this machine (other work uses it): a PATH whose first directory holds a
 * `redis-server` that fails until "installed" and an `apt-get` that "installs" it (a marker file) plays the fresh
 * machine, in a subprocess of its own.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const launcher = fileURLToPath(new URL('../../../infra/redis-local.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'eo-redis-shim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function shim(name: string, body: string): void {
  writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, name), 0o755);
}

// The installer runs only as root (redisInstallPlan); CI and the project's machines run as root.
describe.skipIf(process.platform === 'win32' || process.getuid?.() !== 0)('ensureRedisServer on a machine without redis-server', () => {
  it('three callers, two of them at once: one "installing" line and one apt-get install', () => {
    shim('redis-server', `[ -f "${dir}/installed" ] || exit 1\nexit 0`);
    shim('apt-get', `[ "$1" = "--version" ] && exit 0\necho "$*" >> "${dir}/apt-get.log"\ntouch "${dir}/installed"\nexit 0`);
    const script = [
      `const { ensureRedisServer } = await import(${JSON.stringify(launcher)});`,
      'await Promise.all([ensureRedisServer(), ensureRedisServer()]);',
      'await ensureRedisServer();',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, PATH: `${dir}:${process.env['PATH']}` },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr.match(/redis-server not found on PATH: installing/g)).toHaveLength(1);
    expect(readFileSync(join(dir, 'apt-get.log'), 'utf8').trim().split('\n')).toHaveLength(1);
  });
});
