-- Stripe's /v1 on payments-api (issue 35, docs/stripe.md).

-- A PaymentIntent (made through /v1): the amount to collect and its own state until a
-- confirmation makes a payment (a /v2 Payment, Stripe's Charge). Its status as /v1 shows it
-- is the latest payment's while that one is not failed (succeeded, requires_capture,
-- canceled), otherwise its own: requires_payment_method, requires_confirmation, or canceled
-- before any payment.
CREATE TABLE "payment_intents" (
  "id"                  TEXT NOT NULL,
  "account_id"          TEXT NOT NULL,
  "mode"                "payment_mode" NOT NULL,
  "customer_id"         TEXT,
  "amount"              INTEGER NOT NULL,
  "currency"            VARCHAR(3) NOT NULL,
  "status"              VARCHAR(32) NOT NULL,
  "capture_method"      VARCHAR(16) NOT NULL DEFAULT 'automatic',
  "payment_method"      TEXT,
  "description"         TEXT,
  "metadata"            JSONB NOT NULL DEFAULT '{}',
  "latest_payment_id"   TEXT,
  -- the last failed confirmation's error (Stripe's last_payment_error), cleared by a success
  "last_payment_error"  JSONB,
  "canceled_at"         TIMESTAMPTZ(3),
  "cancellation_reason" VARCHAR(32),
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "payment_intents_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "payment_intents_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE,
  CONSTRAINT "payment_intents_amount_check" CHECK ("amount" > 0)
);
CREATE INDEX "payment_intents_account_id_mode_created_at_id_idx" ON "payment_intents"("account_id", "mode", "created_at" DESC, "id" DESC);
CREATE INDEX "payment_intents_customer_id_idx" ON "payment_intents"("customer_id");

-- Every payment made by confirming an intent names it; /v2 payments made through /v2 have none.
ALTER TABLE "payments" ADD COLUMN "payment_intent_id" TEXT;
ALTER TABLE "payments" ADD CONSTRAINT "payments_payment_intent_id_fkey" FOREIGN KEY ("payment_intent_id") REFERENCES "payment_intents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
CREATE INDEX "payments_payment_intent_id_idx" ON "payments"("payment_intent_id");
ALTER TABLE "payment_intents" ADD CONSTRAINT "payment_intents_latest_payment_id_fkey" FOREIGN KEY ("latest_payment_id") REFERENCES "payments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
-- A /v1 intent needs no customer (as at Stripe); its payment shows customer_id null on /v2.
ALTER TABLE "payments" ALTER COLUMN "customer_id" DROP NOT NULL;

-- Webhook dialects: one event row, seen by the service's own API under `event`/`data` and,
-- for an app that speaks a second dialect (Stripe's /v1), under `dialect_event`/`dialect_data`.
-- Either may be absent: an event of one API only.
ALTER TABLE "webhook_events" ALTER COLUMN "event" DROP NOT NULL;
ALTER TABLE "webhook_events" ALTER COLUMN "data" DROP NOT NULL;
ALTER TABLE "webhook_events" ADD COLUMN "dialect_event" VARCHAR(100);
ALTER TABLE "webhook_events" ADD COLUMN "dialect_data" JSONB;
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_some_event_check" CHECK ("event" IS NOT NULL OR "dialect_event" IS NOT NULL);
-- An endpoint of the dialect (NULL: the service's own API) gets only the dialect's events, in its shape.
ALTER TABLE "webhook_endpoints" ADD COLUMN "dialect" VARCHAR(16);
ALTER TABLE "webhook_endpoints" ADD COLUMN "metadata" JSONB NOT NULL DEFAULT '{}';
