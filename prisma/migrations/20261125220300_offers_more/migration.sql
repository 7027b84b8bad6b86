-- Offers, more (platform contract "Offers, more"; issue 19 item 4): offer documents and a
-- maximum investment; updated_at kept by the database on every change, for incremental sync
-- (GET /api/v1/offers?modified_after=); the partner-wide allocation list.

-- AlterTable
ALTER TABLE "offers" ADD COLUMN "maximum_investment" DECIMAL(18,2);
ALTER TABLE "offers" ADD COLUMN "documents" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "offers" ALTER COLUMN "updated_at" SET DEFAULT CURRENT_TIMESTAMP;

-- Every write to an offer (admin change, lifecycle transition, allocation mark, raw SQL or
-- Prisma) moves updated_at, from one clock: the database's. A client syncing with
-- modified_after can therefore never miss a change because some code path forgot it.
CREATE FUNCTION "offers_touch_updated_at"() RETURNS trigger AS $$
BEGIN
  NEW."updated_at" := clock_timestamp();
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "offers_touch_updated_at"
  BEFORE INSERT OR UPDATE ON "offers"
  FOR EACH ROW EXECUTE FUNCTION "offers_touch_updated_at"();

-- CreateIndex
CREATE INDEX "offers_updated_at_id_idx" ON "offers"("updated_at", "id");

-- CreateIndex
CREATE INDEX "allocations_partner_id_created_at_id_idx" ON "allocations"("partner_id", "created_at" DESC, "id" DESC);
