-- Offers partners manage their own OAuth clients (/api/v1/clients): a client has a name
-- (existing clients are named `default`), and a rotated-out secret may stay valid for a
-- grace period (its scrypt hash and the end of the grace; one previous secret at most).

-- AlterTable
ALTER TABLE "oauth_clients" ADD COLUMN "name" TEXT NOT NULL DEFAULT 'default',
ADD COLUMN "previous_secret_hash" TEXT,
ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3);
