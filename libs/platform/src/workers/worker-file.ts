import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The bootstrap of a worker started from TypeScript source (Jest, `bench/ts-run.mjs`): a
 * CommonJS require hook that compiles each `.ts` file with @swc/core, mapping `./x.js`
 * imports to `./x.ts`, then requires the worker's file. The compiled service (dist/) never
 * uses it: its worker files are JavaScript.
 */
const TS_BOOTSTRAP = `
const Module = require('node:module');
const { existsSync, readFileSync } = require('node:fs');
const { dirname, resolve } = require('node:path');
const { workerData } = require('node:worker_threads');
const { transformSync } = require('@swc/core');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (request.startsWith('.') && request.endsWith('.js') && parent && parent.filename) {
    const ts = resolve(dirname(parent.filename), request.slice(0, -3) + '.ts');
    if (existsSync(ts)) request = ts;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
Module._extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
require(workerData.__workerFile);
`;

/**
 * Starts a worker thread from a file of its own, given as the URL of its compiled `.js`
 * (`new URL('./x.worker.js', import.meta.url)`). In the compiled service that file exists;
 * run from TypeScript source (tests, benchmarks) the `.ts` beside it is compiled on load.
 * A worker file may import only Node's modules, npm packages and relative files of the
 * same kind (types, protocol constants): no '@app/*' aliases.
 */
export function startWorkerFile(file: URL, options: WorkerOptions = {}): Worker {
  const js = fileURLToPath(file);
  if (existsSync(js)) return new Worker(js, options);
  const ts = js.replace(/\.js$/, '.ts');
  if (!existsSync(ts)) throw new Error(`worker file not found: ${js} (nor ${ts})`);
  const data: unknown = options.workerData;
  const workerData = { ...(typeof data === 'object' && data !== null ? data : {}), __workerFile: ts };
  return new Worker(TS_BOOTSTRAP, { ...options, eval: true, workerData });
}
