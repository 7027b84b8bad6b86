-- Issue 31: access tokens carry the version of the client secret that minted them
-- (claim `secret_version`). `secret_version` counts the client's secrets (each rotation adds
-- one; the previous secret in grace is `secret_version` - 1). Access tokens minted from a
-- secret older than `min_token_secret_version` are refused: a rotation without grace sets it
-- to the new secret's version, so the old secret's tokens stop at once. Tokens issued before
-- this migration carry no claim and count as version 0.

-- AlterTable
ALTER TABLE "oauth_clients" ADD COLUMN "secret_version" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN "min_token_secret_version" INTEGER NOT NULL DEFAULT 0;
