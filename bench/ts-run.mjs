// Runs a TypeScript entry of this repository without a build: a CommonJS require hook
// compiles each .ts file with @swc/core (as Jest does) and resolves the '@app/*' aliases.
// Usage: node bench/ts-run.mjs <entry.ts> [args...]
import { existsSync, readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { transformSync } = require('@swc/core');
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  // @app/<lib> and @app/<lib>/<folder> (the platform's telemetry entry, loaded first by main.ts)
  const alias = /^@app\/([a-z-]+)(?:\/([a-z-]+))?$/.exec(request);
  const aliased = alias && join(root, 'libs', alias[1], 'src', alias[2] ?? '', 'index.ts');
  if (aliased && existsSync(aliased)) request = aliased;
  else if (request.startsWith('.') && request.endsWith('.js') && parent?.filename) {
    const ts = resolve(dirname(parent.filename), `${request.slice(0, -3)}.ts`);
    if (existsSync(ts)) request = ts;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
Module._extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};

const entry = process.argv[2];
if (!entry) throw new Error('usage: node bench/ts-run.mjs <entry.ts> [args...]');
require(resolve(entry));
