-- When a table was last queried (any instance, at most about once a minute per instance):
-- a starting vector-api loads the most recently queried tables first. NULL: never queried
-- since this column exists. Not indexed: only read when an instance lists its tables to load.
ALTER TABLE "vector_tables" ADD COLUMN "last_queried_at" TIMESTAMPTZ(3);
