-- Delivery successes and failures over time per endpoint (platform contract, "Console (web
-- UI)": the chart of GET …/webhook-endpoints/{id}/stats). Each attempt carries its
-- endpoint, so one endpoint's attempts in a time window are one range scan of
-- (endpoint_id, created_at) instead of a probe per delivery the endpoint ever had.

-- AlterTable
ALTER TABLE "webhook_attempts" ADD COLUMN "endpoint_id" TEXT;

-- Migrations are additive (docs/operations.md): a process of the previous release, still
-- running during a rolling deploy, inserts attempts without endpoint_id. This fills it from
-- the delivery (before the NOT NULL check), so its attempts are recorded and counted; the
-- current code writes the column itself and never takes the lookup.
CREATE FUNCTION "webhook_attempts_fill_endpoint"() RETURNS trigger AS $$
BEGIN
  IF NEW."endpoint_id" IS NULL THEN
    SELECT d."endpoint_id" INTO NEW."endpoint_id" FROM "webhook_deliveries" d WHERE d."id" = NEW."delivery_id";
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "webhook_attempts_fill_endpoint"
  BEFORE INSERT ON "webhook_attempts"
  FOR EACH ROW EXECUTE FUNCTION "webhook_attempts_fill_endpoint"();

UPDATE "webhook_attempts" a SET "endpoint_id" = d."endpoint_id" FROM "webhook_deliveries" d WHERE d."id" = a."delivery_id";
ALTER TABLE "webhook_attempts" ALTER COLUMN "endpoint_id" SET NOT NULL;

-- CreateIndex
CREATE INDEX "webhook_attempts_endpoint_id_created_at_idx" ON "webhook_attempts"("endpoint_id", "created_at");
