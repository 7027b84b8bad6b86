-- payments-api keys, second round: accounts roll, list and revoke their own keys and make
-- restricted keys (`rk_…`) with per-resource permissions. Existing keys become secret keys
-- without a name; their last 4 characters were never kept (NULL).

-- CreateEnum
CREATE TYPE "payment_api_key_kind" AS ENUM ('secret', 'restricted');

-- AlterTable
ALTER TABLE "payment_api_keys" ADD COLUMN "kind" "payment_api_key_kind" NOT NULL DEFAULT 'secret';
ALTER TABLE "payment_api_keys" ADD COLUMN "name" TEXT;
ALTER TABLE "payment_api_keys" ADD COLUMN "last4" CHAR(4);
ALTER TABLE "payment_api_keys" ADD COLUMN "permissions" JSONB;
ALTER TABLE "payment_api_keys" ADD COLUMN "expires_at" TIMESTAMPTZ(3);
ALTER TABLE "payment_api_keys" ADD COLUMN "last_used_at" TIMESTAMPTZ(3);

-- CreateIndex: an account's keys newest first (GET /v2/api-keys pages by created_at, id)
DROP INDEX "payment_api_keys_account_id_idx";
CREATE INDEX "payment_api_keys_account_id_created_at_id_idx" ON "payment_api_keys"("account_id", "created_at", "id");
