// Prisma CLI configuration (Prisma 7 keeps the connection URL out of schema.prisma).
// `prisma generate` needs no database; the URL only matters to `prisma migrate deploy`
// on a machine that has the schema engine. Here migrations run through scripts/migrate.ts.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' },
});
