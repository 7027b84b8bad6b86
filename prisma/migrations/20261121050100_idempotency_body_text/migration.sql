-- Replays must be byte-identical to the first response; jsonb reorders object keys.
-- AlterTable
ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" SET DATA TYPE TEXT USING "response_body"::text;
