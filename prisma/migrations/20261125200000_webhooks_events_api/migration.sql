-- Webhooks, second round: endpoints get a description and an optional delivery rate limit;
-- `"*"` names every event kind (what an empty list meant before); events sent by
-- POST …/webhook-endpoints/{id}/test are marked, so the events API leaves them out; the
-- events API lists one owner's events newest first.

-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN "description" TEXT;
ALTER TABLE "webhook_endpoints" ADD COLUMN "rate_limit_per_second" INTEGER;
ALTER TABLE "webhook_endpoints" ALTER COLUMN "events" SET DEFAULT ARRAY['*']::TEXT[];
UPDATE "webhook_endpoints" SET "events" = ARRAY['*']::TEXT[] WHERE cardinality("events") = 0;

-- AlterTable
ALTER TABLE "webhook_events" ADD COLUMN "test" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "webhook_events_owner_type_owner_id_created_at_id_idx" ON "webhook_events"("owner_type", "owner_id", "created_at", "id");
