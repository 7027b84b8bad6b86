/**
 * `npm run docs:architecture`: writes the generated tables of docs/architecture.md (the URL →
 * folder table and the queue table, between their markers) from the code
 * (scripts/architecture-docs/). `--check` writes nothing and exits 1 when the file is stale.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { controllers, queues } from './architecture-docs/code-map';
import { DOC, renderQueueTable, renderUrlTable, spliceRegions } from './architecture-docs/render';

/** The repository root: the nearest directory above this file with a package.json (run from scripts/ or dist/scripts/). */
function repositoryRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('docs:architecture: no package.json above this script');
    dir = parent;
  }
  return dir;
}

const root = repositoryRoot();
const file = join(root, DOC);
const current = readFileSync(file, 'utf8');
const next = spliceRegions(current, { urls: renderUrlTable(controllers(root)), queues: renderQueueTable(queues(root)) });
if (process.argv.includes('--check')) {
  if (next !== current) {
    process.stderr.write(`${DOC} differs from the code: run npm run docs:architecture\n`);
    process.exit(1);
  }
  process.stdout.write(`${DOC} matches the code\n`);
} else if (next === current) {
  process.stdout.write(`${DOC} is up to date\n`);
} else {
  writeFileSync(file, next);
  process.stdout.write(`${DOC}: URL and queue tables rewritten from the code\n`);
}
