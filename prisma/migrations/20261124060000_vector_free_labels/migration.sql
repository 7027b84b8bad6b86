-- Labels of deleted vector rows, reused by the next inserts of the same table.
-- CreateTable
CREATE TABLE "vector_free_labels" (
    "table_id" UUID NOT NULL,
    "label" INTEGER NOT NULL,

    CONSTRAINT "vector_free_labels_pkey" PRIMARY KEY ("table_id","label")
);

-- AddForeignKey
ALTER TABLE "vector_free_labels" ADD CONSTRAINT "vector_free_labels_table_id_fkey" FOREIGN KEY ("table_id") REFERENCES "vector_tables"("id") ON DELETE CASCADE ON UPDATE CASCADE;
