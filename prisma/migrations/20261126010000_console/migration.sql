-- The console (issue 20): one-time sign-in links issued by the admin API and the server-side
-- sessions they open. Only SHA-256 hashes of the link tokens and session cookies are kept.

-- CreateTable
CREATE TABLE "console_links" (
    "id" TEXT NOT NULL,
    "service" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "console_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "console_sessions" (
    "id" TEXT NOT NULL,
    "service" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "console_links_token_hash_key" ON "console_links"("token_hash");
CREATE INDEX "console_links_expires_at_idx" ON "console_links"("expires_at");
CREATE UNIQUE INDEX "console_sessions_token_hash_key" ON "console_sessions"("token_hash");
CREATE INDEX "console_sessions_service_tenant_id_idx" ON "console_sessions"("service", "tenant_id");
CREATE INDEX "console_sessions_last_seen_at_idx" ON "console_sessions"("last_seen_at");
