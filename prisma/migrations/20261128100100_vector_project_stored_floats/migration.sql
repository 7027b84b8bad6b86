-- Issue 31: a per-project budget of stored floats (rows × dimension, VECTOR_MAX_FLOATS_PER_PROJECT).
-- The counter is updated conditionally in each write's transaction; existing rows are counted once here.
ALTER TABLE "vector_projects" ADD COLUMN "stored_floats" BIGINT NOT NULL DEFAULT 0;

UPDATE "vector_projects" p
SET "stored_floats" = counted.floats
FROM (
  SELECT t."project_id", SUM(t."dimension"::bigint * (SELECT COUNT(*) FROM "vector_rows" r WHERE r."table_id" = t."id")) AS floats
  FROM "vector_tables" t
  GROUP BY t."project_id"
) counted
WHERE counted."project_id" = p."id";
