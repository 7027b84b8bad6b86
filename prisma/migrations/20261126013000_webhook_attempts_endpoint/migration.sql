-- Delivery successes and failures over time per endpoint (platform contract, "Console (web
-- UI)": the chart of GET …/webhook-endpoints/{id}/stats). Each attempt carries its
-- endpoint, so one endpoint's attempts in a time window are one range scan of
-- (endpoint_id, created_at) instead of a probe per delivery the endpoint ever had.

-- AlterTable
ALTER TABLE "webhook_attempts" ADD COLUMN "endpoint_id" TEXT;
UPDATE "webhook_attempts" a SET "endpoint_id" = d."endpoint_id" FROM "webhook_deliveries" d WHERE d."id" = a."delivery_id";
ALTER TABLE "webhook_attempts" ALTER COLUMN "endpoint_id" SET NOT NULL;

-- CreateIndex
CREATE INDEX "webhook_attempts_endpoint_id_created_at_idx" ON "webhook_attempts"("endpoint_id", "created_at");
