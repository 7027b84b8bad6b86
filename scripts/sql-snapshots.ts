/**
 * `npm run sql:snapshots`: writes `sql/<source path>.sql`, the raw SQL each source file under
 * apps/ and libs/ sends (scripts/sql-snapshots/extract.ts), and deletes the snapshots of
 * sources that send none any more. `--check` writes nothing and exits 1 naming the snapshot
 * files that differ from the code. A reviewer reads the SQL that runs in the diff of sql/.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { COMMAND, driftedSnapshots, generateSnapshots, SNAPSHOT_DIR } from './sql-snapshots/extract';

/** The repository root: the nearest directory above this file with a package.json (run from scripts/ or dist/scripts/). */
function repositoryRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('sql:snapshots: no package.json above this script');
    dir = parent;
  }
  return dir;
}

/** Removes the empty directories under `dir` (a deleted source's folder). */
function pruneEmpty(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) pruneEmpty(join(dir, entry.name));
  if (readdirSync(dir).length === 0) rmdirSync(dir);
}

const root = repositoryRoot();
const expected = generateSnapshots(root);
const drifted = driftedSnapshots(root, expected);
if (process.argv.includes('--check')) {
  if (drifted.length > 0) {
    process.stderr.write(`SQL snapshots differ from the code (run ${COMMAND}):\n${drifted.map((p) => `  ${p}\n`).join('')}`);
    process.exit(1);
  }
  process.stdout.write(`${expected.size} SQL snapshots match the code\n`);
} else {
  for (const path of drifted) {
    const content = expected.get(path);
    if (content === undefined) unlinkSync(join(root, path));
    else {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
  }
  if (existsSync(join(root, SNAPSHOT_DIR))) pruneEmpty(join(root, SNAPSHOT_DIR));
  process.stdout.write(
    drifted.length === 0
      ? `${expected.size} SQL snapshots are up to date\n`
      : `SQL snapshots rewritten:\n${drifted.map((p) => `  ${p}\n`).join('')}`,
  );
}
