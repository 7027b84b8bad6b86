import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** Test hook: runs between writing the temporary file and linking it into place. */
export interface InstallationSecretHooks {
  readonly beforeLink?: () => void;
}

/**
 * The trimmed content of `<dataDir>/<name>`, a secret of a development or test installation
 * (an app's generated key when its production variable is unset), created on first use with
 * `generate()`, mode 0600, atomically and race-free: the content is written completely to a
 * private temporary file, which is then hard-linked to the final name; link(2) fails with
 * EEXIST when another process got there first, and then that process's content is used. So
 * every process of one installation (in-process tests, spawned services, `npm start`) reads
 * the same secret, and no two installations share one. The caller parses what it reads (and
 * never echoes it).
 */
export function installationSecret(
  dataDir: string,
  name: string,
  generate: () => string,
  hooks: InstallationSecretHooks = {},
): string {
  const file = join(dataDir, name);
  const existing = readInstallationSecret(file);
  if (existing !== undefined) return existing;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const temp = join(dataDir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${generate()}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(temp, 0o600); // whatever the umask
    hooks.beforeLink?.();
    try {
      linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } finally {
    unlinkSync(temp);
  }
  const secret = readInstallationSecret(file);
  if (secret === undefined) throw new Error(`the installation secret ${file} vanished while it was being created`);
  return secret;
}

/** The trimmed content of `file`, or undefined when it does not exist. */
function readInstallationSecret(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
