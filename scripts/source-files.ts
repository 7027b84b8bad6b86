import { readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';

const SKIP_DIRS = new Set(['node_modules', 'dist', 'generated', '.data', 'coverage']);

/**
 * The sources under `dirs` whose file names match `names` (repository paths with `/`,
 * sorted): specs, declarations and generated code excluded. Shared by the scripts that read
 * the code: the error docs, the architecture tables and the SQL snapshots.
 */
export function sourceFiles(root: string, dirs: readonly string[], names: RegExp = /\.ts$/): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir))) {
      if (SKIP_DIRS.has(name)) continue;
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (names.test(name) && !/\.(spec|e2e-spec|fault-spec)\.ts$/.test(name) && !name.endsWith('.d.ts'))
        out.push(path.split(sep).join('/'));
    }
  };
  for (const dir of dirs) walk(dir);
  return out.sort();
}
