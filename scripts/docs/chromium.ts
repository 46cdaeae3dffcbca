/**
 * Headless Chromium for the browser check: Debian's `chromium` package, driven by playwright-core (which
 * downloads no browser of its own). The network of a CI machine may be closed, so the browser is started
 * with everything that would phone home turned off, in a new empty profile, and may reach only the
 * site's own server (checked by the crawl).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const onPath = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/** The browser's path; installs Debian's package when it is missing and this is root on a machine with apt-get. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const root = process.getuid?.() === 0;
  if (CHROMIUM !== '/usr/bin/chromium' || !root || !onPath('apt-get')) {
    throw new Error(
      `Chromium is not at ${CHROMIUM}. Install Debian's package (as root: apt-get update && apt-get install -y chromium), ` +
        'or point CHROMIUM_PATH at a Chromium or Chrome binary.',
    );
  }
  // Said before apt-get starts: the install pulls in a few hundred packages, which nobody should find out afterwards.
  process.stdout.write(
    "[docs:check] Chromium is missing: installing it now with apt-get (Debian's chromium and its dependencies, " +
      'about 230 packages, several hundred MB; set CHROMIUM_PATH to use a browser you already have)\n',
  );
  const install = spawnSync('sh', ['-c', 'apt-get update && apt-get install -y chromium'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (install.status !== 0 || !existsSync(CHROMIUM)) throw new Error(`apt-get could not install chromium (exit ${install.status})`);
  return CHROMIUM;
}

/** A browser with a fresh profile; close() removes the profile too. */
export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(executablePath: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'docs-check-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
