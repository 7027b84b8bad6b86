import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM } from '../support/browser';

/**
 * The console's browser tests drive Debian's Chromium. On a fresh Debian machine where it is
 * missing and the tests run as root, it is installed here (as .ci/run does), so that `npm test`
 * alone sets everything up; elsewhere one line says how to get it, and the browser tests fail
 * saying the same (never skipped).
 */
export function ensureChromium(log: (line: string) => void): void {
  if (existsSync(CHROMIUM)) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && existsSync('/usr/bin/apt-get')) {
    log(`${CHROMIUM} is missing: installing Debian's chromium for the console's browser tests`);
    try {
      execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
      execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
        stdio: 'ignore',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    } catch (err) {
      log(`could not install chromium (${err instanceof Error ? err.message : String(err)})`);
    }
    if (existsSync(CHROMIUM)) return;
  }
  log(
    `no Chromium at ${CHROMIUM}: the console's browser tests will fail. Install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`,
  );
}
