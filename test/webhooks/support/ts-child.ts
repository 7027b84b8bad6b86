import { type ChildProcess, fork } from 'node:child_process';

/**
 * Node code run with `-e` in a child process: a require hook that compiles the
 * repository's TypeScript with @swc/core (as Jest does) and resolves the '@app/*' aliases,
 * so a test can run real service code in a process it can SIGKILL.
 */
const BOOTSTRAP = `
const Module = require('node:module');
const path = require('node:path');
const fs = require('node:fs');
const { transformSync } = require('@swc/core');
const root = process.cwd();
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const alias = /^@app\\/(platform|auth|webhooks)$/.exec(request);
  if (alias) request = path.join(root, 'libs', alias[1], 'src', 'index.ts');
  else if (request.startsWith('.') && request.endsWith('.js') && parent && parent.filename) {
    const ts = path.resolve(path.dirname(parent.filename), request.slice(0, -3) + '.ts');
    if (fs.existsSync(ts)) request = ts;
  }
  return resolve.call(this, request, parent, ...rest);
};
Module._extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022', keepClassNames: true },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
require(path.resolve(process.env.TS_CHILD_ENTRY));
`;

/** Forks `entry` (a .ts file) with `env`; resolves once the child sends 'ready' over IPC. */
export async function forkTsChild(entry: string, env: Record<string, string>, timeoutMs = 30_000): Promise<ChildProcess> {
  const child = fork('-e', [BOOTSTRAP], {
    execArgv: ['--no-warnings'],
    env: { ...process.env, ...env, TS_CHILD_ENTRY: entry },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
  return child;
}

/** SIGKILL: no shutdown hooks, no lock release, like a crashed machine. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
