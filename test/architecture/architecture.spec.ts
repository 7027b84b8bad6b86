/**
 * The codebase's shape, checked on every `npm test` (docs/architecture.md, "Checks"): what
 * ESLint cannot express. Import boundaries, the one transaction file, process.env, who talks
 * to Prisma and the secret gate are lint rules (eslint-rules/conventions.mjs, shown to fire by
 * lint-rules.spec.ts). Reads the sources as text: no build, no database.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { controllers, controllersIn, misplacedControllers } from '../../scripts/architecture-docs/code-map';

const ROOT = process.cwd();
const SKIP = new Set(['node_modules', 'dist', 'generated', '.data', 'coverage']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(name)) out.push(path.split(sep).join('/'));
  }
  return out;
}

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const lib = sourceFiles('libs');
const app = sourceFiles('apps');

/** Lines of `files` matching `pattern`, as `file:line: text`. */
function matches(files: readonly string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    read(file)
      .split('\n')
      .flatMap((text, i) => (pattern.test(text) ? [`${file}:${i + 1}: ${text.trim()}`] : [])),
  );
}

describe('architecture', () => {
  it('finds the sources it checks', () => {
    expect(lib.length).toBeGreaterThan(50);
    expect(app.length).toBeGreaterThan(50);
  });

  it('checks every lib, the console lib included', () => {
    const libs = new Set(lib.map((file) => file.split('/')[1]));
    expect([...libs].sort()).toEqual(readdirSync(join(ROOT, 'libs')).sort());
    expect(libs.has('console')).toBe(true);
  });

  it('no file under libs/ names a service', () => {
    // ("test vector", as in a signature scheme's published test vector, is not the service)
    expect(matches(lib, /(?<!test )\b(offers|vector|payments)(-api)?\b/i)).toEqual([]);
  });

  it("every route's controller is under the app that serves it, in the folder named after the route's resource", () => {
    const found = controllers(ROOT);
    expect(found.length).toBeGreaterThan(30);
    expect(misplacedControllers(found)).toEqual([]);
    // the platform's own routes and the console's (libs/console: pages and session routes,
    // the same in every service) are the only controllers in libs/
    const libControllers = matches(lib, /^\s*@Controller\(/).map((hit) => hit.split(': ')[1]);
    expect(libControllers.sort()).toEqual([
      "@Controller('admin/v1/info')",
      "@Controller('console')",
      "@Controller('health')",
      "@Controller('metrics')",
    ]);
  });

  it('the route-folder rule flags a controller outside its resource folder, and exempts compat adapters', () => {
    const at = (file: string, path: string) => controllersIn(file, `@Controller('${path}')\nexport class C {}`);
    expect(
      misplacedControllers([
        ...at('apps/payments-api/src/refunds/refunds.controller.ts', 'v2/refunds'),
        ...at('apps/payments-api/src/payments/receipts.controller.ts', 'v2/payments/:id/receipts'),
        // an adapter for another product's protocol: apps/<service>/src/compat/<protocol>/, whatever its paths
        ...at('apps/vector-api/src/compat/qdrant/collections.controller.ts', 'collections/:name/points'),
        ...at('apps/payments-api/src/compat/stripe/charges.controller.ts', 'v1/charges'),
        // ...but only directly in apps/<service>/src/compat/<protocol>/
        ...at('apps/vector-api/src/tables/compat/qdrant.controller.ts', 'collections'),
      ]),
    ).toEqual([
      "apps/payments-api/src/payments/receipts.controller.ts: @Controller('v2/payments/:id/receipts') is in payments/",
      "apps/vector-api/src/tables/compat/qdrant.controller.ts: @Controller('collections') is in tables/",
    ]);
  });

  it('every payments-key controller declares the resource its routes touch (restricted keys fail closed without one)', () => {
    const undeclared = app
      .filter((file) => file.startsWith('apps/payments-api/') && file.endsWith('.controller.ts'))
      .filter(
        (file) => read(file).includes("@Authenticated('payments_key')") && !/^@KeyResource\('[a-z_]+'\)$/m.test(read(file)),
      );
    expect(undeclared).toEqual([]);
    // and the check has something to check
    expect(matches(app, /^@KeyResource\('/).length).toBeGreaterThanOrEqual(6);
  });
});
