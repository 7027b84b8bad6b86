/**
 * `npm run docs:errors`: writes the code tables of docs/errors.md (between its markers) from
 * the error catalogues in the code (scripts/error-docs/render.ts). `--check` writes nothing
 * and exits 1 when the file is stale. The prose around the markers is hand-written.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderErrorTables, spliceGenerated } from './error-docs/render';

/** The repository root: the nearest directory above this file with a package.json (run from scripts/ or dist/scripts/). */
function repositoryRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('docs:errors: no package.json above this script');
    dir = parent;
  }
  return dir;
}

const file = join(repositoryRoot(), 'docs', 'errors.md');
const current = readFileSync(file, 'utf8');
const next = spliceGenerated(current, renderErrorTables());
if (process.argv.includes('--check')) {
  if (next !== current) {
    process.stderr.write('docs/errors.md differs from the error catalogues: run npm run docs:errors\n');
    process.exit(1);
  }
  process.stdout.write('docs/errors.md matches the error catalogues\n');
} else if (next === current) {
  process.stdout.write('docs/errors.md is up to date\n');
} else {
  writeFileSync(file, next);
  process.stdout.write('docs/errors.md: code tables rewritten from the error catalogues\n');
}
