-- Snapshots of vector-api's in-memory indexes (apps/vector-api/src/snapshots/, docs/vector.md).
-- CreateTable
CREATE TABLE "vector_snapshots" (
    "id" UUID NOT NULL,
    "table_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "format_version" INTEGER NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "bytes" BIGINT,
    "sha256" CHAR(64),
    "chunks" INTEGER,
    "published_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vector_snapshots_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vector_snapshot_chunks" (
    "snapshot_id" UUID NOT NULL,
    "n" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "sha256" CHAR(64) NOT NULL,

    CONSTRAINT "vector_snapshot_chunks_pkey" PRIMARY KEY ("snapshot_id","n")
);

-- Chunks are float vectors and graph links: pglz cannot shrink them, trying costs CPU on every write.
ALTER TABLE "vector_snapshot_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;

-- CreateIndex
CREATE INDEX "vector_snapshots_table_id_seq_idx" ON "vector_snapshots"("table_id", "seq");

-- AddForeignKey
ALTER TABLE "vector_snapshots" ADD CONSTRAINT "vector_snapshots_table_id_fkey" FOREIGN KEY ("table_id") REFERENCES "vector_tables"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vector_snapshot_chunks" ADD CONSTRAINT "vector_snapshot_chunks_snapshot_id_fkey" FOREIGN KEY ("snapshot_id") REFERENCES "vector_snapshots"("id") ON DELETE CASCADE ON UPDATE CASCADE;
