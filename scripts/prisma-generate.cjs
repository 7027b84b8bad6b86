// Runs `prisma generate` offline. Every Prisma CLI command tries to download the native
// schema engine, which this project's machines cannot do; generate never executes it,
// so we point PRISMA_SCHEMA_ENGINE_BINARY at a stub that exits 1 (never /bin/true: that
// would let `migrate deploy` "succeed" while applying nothing). See docs/decisions.md.
const { spawnSync } = require('node:child_process');
const { writeFileSync, mkdirSync, chmodSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const cli = join(root, 'node_modules', 'prisma', 'build', 'index.js');
if (!existsSync(cli)) {
  // Production image installed without dev dependencies: the client was generated at build time.
  process.exit(0);
}
const stubDir = join(root, 'node_modules', '.cache', 'prisma-stub');
const stub = join(stubDir, 'schema-engine-stub.sh');
mkdirSync(stubDir, { recursive: true });
writeFileSync(stub, '#!/bin/sh\necho "schema engine unavailable offline; use npm run db:migrate" >&2\nexit 1\n');
chmodSync(stub, 0o755);

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = stub;
const r = spawnSync(process.execPath, [cli, 'generate'], { cwd: root, env, stdio: 'inherit' });
process.exit(r.status ?? 1);
