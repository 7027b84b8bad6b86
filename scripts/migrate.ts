/** `npm run db:migrate`: applies prisma/migrations to DATABASE_URL (see libs/platform database/migrator.ts). */
import { join, resolve } from 'node:path';
import { migrate } from '../libs/platform/src/database/migrator';

const url = process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('db:migrate: DATABASE_URL is not set (npm start migrates its embedded database itself)\n');
  process.exit(1);
}
const root = resolve(__dirname, '..', '..');
migrate(url, { dir: join(root, 'prisma', 'migrations'), log: (l) => process.stdout.write(`${l}\n`) })
  .then((r) => {
    process.stdout.write(`migrations: ${r.applied.length} applied, ${r.alreadyApplied.length} already applied\n`);
  })
  .catch((err: unknown) => {
    process.stderr.write(`db:migrate: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
