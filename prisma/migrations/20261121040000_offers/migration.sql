-- CreateEnum
CREATE TYPE "offer_type" AS ENUM ('ipo', 'placing', 'retail_offer');

-- CreateEnum
CREATE TYPE "offer_status" AS ENUM ('upcoming', 'live', 'closed');

-- CreateEnum
CREATE TYPE "offer_currency" AS ENUM ('gbp', 'eur');

-- CreateEnum
CREATE TYPE "indication_status" AS ENUM ('received', 'cancelled');

-- CreateEnum
CREATE TYPE "allocation_policy" AS ENUM ('pro_rata', 'min_then_pro_rata');

-- CreateTable
CREATE TABLE "offers" (
    "id" TEXT NOT NULL,
    "company" TEXT NOT NULL,
    "ticker" VARCHAR(16) NOT NULL,
    "type" "offer_type" NOT NULL,
    "status" "offer_status" NOT NULL DEFAULT 'upcoming',
    "price_per_share" DECIMAL(18,4) NOT NULL,
    "currency" "offer_currency" NOT NULL,
    "minimum_investment" DECIMAL(18,2) NOT NULL,
    "shares_offered" INTEGER NOT NULL,
    "opens_at" TIMESTAMPTZ(3) NOT NULL,
    "closes_at" TIMESTAMPTZ(3) NOT NULL,
    "closing_soon_notified_at" TIMESTAMPTZ(3),
    "allocated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "offers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "offer_agreements" (
    "partner_id" TEXT NOT NULL,
    "offer_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "offer_agreements_pkey" PRIMARY KEY ("partner_id","offer_id")
);

-- CreateTable
CREATE TABLE "terms_versions" (
    "version" VARCHAR(64) NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "published_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "terms_versions_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "indications" (
    "id" TEXT NOT NULL,
    "offer_id" TEXT NOT NULL,
    "partner_id" TEXT NOT NULL,
    "investor_id" VARCHAR(128) NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" "offer_currency" NOT NULL,
    "terms_version" VARCHAR(64) NOT NULL,
    "status" "indication_status" NOT NULL DEFAULT 'received',
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "cancelled_at" TIMESTAMPTZ(3),

    CONSTRAINT "indications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "allocations" (
    "id" TEXT NOT NULL,
    "indication_id" TEXT NOT NULL,
    "offer_id" TEXT NOT NULL,
    "partner_id" TEXT NOT NULL,
    "investor_id" VARCHAR(128) NOT NULL,
    "shares_requested" INTEGER NOT NULL,
    "shares_allocated" INTEGER NOT NULL,
    "amount_requested" INTEGER NOT NULL,
    "amount_allocated" DECIMAL(30,4) NOT NULL,
    "amount_refunded" INTEGER NOT NULL,
    "currency" "offer_currency" NOT NULL,
    "scaling_factor" DECIMAL(7,6) NOT NULL,
    "method" "allocation_policy" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "allocations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "offers_status_opens_at_idx" ON "offers"("status", "opens_at");

-- CreateIndex
CREATE INDEX "offers_status_closes_at_idx" ON "offers"("status", "closes_at");

-- CreateIndex
CREATE INDEX "offer_agreements_offer_id_idx" ON "offer_agreements"("offer_id");

-- CreateIndex
CREATE INDEX "terms_versions_published_at_idx" ON "terms_versions"("published_at");

-- CreateIndex
CREATE INDEX "indications_offer_id_partner_id_created_at_idx" ON "indications"("offer_id", "partner_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "allocations_indication_id_key" ON "allocations"("indication_id");

-- CreateIndex
CREATE INDEX "allocations_offer_id_partner_id_idx" ON "allocations"("offer_id", "partner_id");

-- AddForeignKey
ALTER TABLE "offer_agreements" ADD CONSTRAINT "offer_agreements_offer_id_fkey" FOREIGN KEY ("offer_id") REFERENCES "offers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "indications" ADD CONSTRAINT "indications_offer_id_fkey" FOREIGN KEY ("offer_id") REFERENCES "offers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "allocations" ADD CONSTRAINT "allocations_indication_id_fkey" FOREIGN KEY ("indication_id") REFERENCES "indications"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "allocations" ADD CONSTRAINT "allocations_offer_id_fkey" FOREIGN KEY ("offer_id") REFERENCES "offers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
