-- Authorize and capture (issue 19): capture_method, what is capturable and what was received,
-- when an authorization expires, and when/why a payment was captured or canceled.
ALTER TABLE "payments" ADD COLUMN "capture_method" VARCHAR(16) NOT NULL DEFAULT 'automatic',
ADD COLUMN "amount_capturable" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "amount_received" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "capture_before" TIMESTAMPTZ(3),
ADD COLUMN "captured_at" TIMESTAMPTZ(3),
ADD COLUMN "canceled_at" TIMESTAMPTZ(3),
ADD COLUMN "cancellation_reason" VARCHAR(32);

-- Every payment that succeeded before this migration was captured in full when it was made.
UPDATE "payments" SET "amount_received" = "amount", "captured_at" = "created_at" WHERE "status" = 'succeeded';

-- Only captured money is refundable: refunded never exceeds what was received, received never
-- exceeds the amount, whatever the application does.
ALTER TABLE "payments" DROP CONSTRAINT "payments_amount_refunded_check";
ALTER TABLE "payments" ADD CONSTRAINT "payments_amounts_check" CHECK (
  "amount_refunded" >= 0 AND "amount_refunded" <= "amount_received"
  AND "amount_received" >= 0 AND "amount_received" <= "amount"
  AND "amount_capturable" >= 0 AND "amount_capturable" <= "amount"
);

-- CreateIndex: the expiry sweep's "authorizations past capture_before".
CREATE INDEX "payments_status_capture_before_idx" ON "payments"("status", "capture_before");

-- Refund metadata (Stripe's rules, as on payments and customers).
ALTER TABLE "refunds" ADD COLUMN "metadata" JSONB NOT NULL DEFAULT '{}';
