-- CreateEnum
CREATE TYPE "vector_index_kind" AS ENUM ('flat', 'ivf', 'hnsw');

-- CreateTable
CREATE TABLE "vector_tables" (
    "id" UUID NOT NULL,
    "name" VARCHAR(64) NOT NULL,
    "dimension" INTEGER NOT NULL,
    "index_kind" "vector_index_kind" NOT NULL,
    "seq" BIGINT NOT NULL DEFAULT 0,
    "next_label" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vector_tables_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vector_rows" (
    "table_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "label" INTEGER NOT NULL,
    "embedding" BYTEA NOT NULL,
    "metadata" JSONB,

    CONSTRAINT "vector_rows_pkey" PRIMARY KEY ("table_id","id")
);

-- CreateTable
CREATE TABLE "vector_changes" (
    "table_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "op" VARCHAR(8) NOT NULL,
    "labels" INTEGER[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vector_changes_pkey" PRIMARY KEY ("table_id","seq")
);

-- CreateIndex
CREATE UNIQUE INDEX "vector_tables_name_key" ON "vector_tables"("name");

-- CreateIndex
CREATE UNIQUE INDEX "vector_rows_table_id_label_key" ON "vector_rows"("table_id", "label");

-- AddForeignKey
ALTER TABLE "vector_rows" ADD CONSTRAINT "vector_rows_table_id_fkey" FOREIGN KEY ("table_id") REFERENCES "vector_tables"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vector_changes" ADD CONSTRAINT "vector_changes_table_id_fkey" FOREIGN KEY ("table_id") REFERENCES "vector_tables"("id") ON DELETE CASCADE ON UPDATE CASCADE;
