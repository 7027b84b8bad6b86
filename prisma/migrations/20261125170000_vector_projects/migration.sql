-- Vector projects: the vector-api tenant. Tables and tokens belong to one project; what
-- existed before lands in the `default` project (proj_default). Tables get a metric.

-- CreateEnum
CREATE TYPE "vector_metric" AS ENUM ('cosine', 'dot', 'euclidean');

-- CreateTable
CREATE TABLE "vector_projects" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vector_projects_pkey" PRIMARY KEY ("id")
);

INSERT INTO "vector_projects" ("id", "name") VALUES ('proj_default', 'default');

-- AlterTable: tokens belong to a project; the last 4 characters (NULL for tokens made
-- before this migration: only their hash was kept) and the last use are shown to it.
ALTER TABLE "vector_tokens" ADD COLUMN "project_id" TEXT;
UPDATE "vector_tokens" SET "project_id" = 'proj_default';
ALTER TABLE "vector_tokens" ALTER COLUMN "project_id" SET NOT NULL;
ALTER TABLE "vector_tokens" ADD COLUMN "last4" CHAR(4);
ALTER TABLE "vector_tokens" ADD COLUMN "last_used_at" TIMESTAMPTZ(3);
CREATE INDEX "vector_tokens_project_id_idx" ON "vector_tokens"("project_id");
ALTER TABLE "vector_tokens" ADD CONSTRAINT "vector_tokens_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "vector_projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable: table names are unique within a project.
ALTER TABLE "vector_tables" ADD COLUMN "project_id" TEXT;
UPDATE "vector_tables" SET "project_id" = 'proj_default';
ALTER TABLE "vector_tables" ALTER COLUMN "project_id" SET NOT NULL;
ALTER TABLE "vector_tables" ADD COLUMN "metric" "vector_metric" NOT NULL DEFAULT 'cosine';
DROP INDEX "vector_tables_name_key";
CREATE UNIQUE INDEX "vector_tables_project_id_name_key" ON "vector_tables"("project_id", "name");
ALTER TABLE "vector_tables" ADD CONSTRAINT "vector_tables_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "vector_projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable: ids compare byte by byte (GET /v1/tables/{table}/vectors lists them in id
-- order and pages by the last id; a byte order is the same on every database, and a
-- prefix search can use the primary key).
ALTER TABLE "vector_rows" ALTER COLUMN "id" TYPE TEXT COLLATE "C";
