-- Idempotency-Keys are scoped by the caller's tenant and mode, no longer by its credential
-- (platform contract, third round, "Credentials and sessions"; docs/decisions.md 159). The
-- column keeps its type; its values change form:
--   payments-api  payments_key:<key id>                    → payments:<account id>:<mode>
--   offers-api    partner:<partner id>:client:<client id>  → partner:<partner id>
--   vector-api    (no idempotent route yet)                → vector:<project id>
-- This rewrites the records still within their retention, so a retry after the upgrade
-- replays them as before. Where several credentials of one tenant and mode used the same
-- Idempotency-Key, the newest record takes the tenant's scope and the others keep their old
-- one (never replayed again; purged at their expiry). Records of payments console sessions
-- (payments_key:<session id>) name no mode and are left as they are: their retries run again.
-- A process of the previous release, still running during a rolling deploy, keeps writing
-- the old form: those records are replayed only by such processes (docs/payments.md).

WITH "mapped" AS (
  SELECT i."id",
         'payments:' || k."account_id" || ':' || k."mode"::text AS "scope",
         row_number() OVER (PARTITION BY k."account_id", k."mode", i."key" ORDER BY i."created_at" DESC, i."id") AS "n"
    FROM "idempotency_keys" i
    JOIN "payment_api_keys" k ON i."scope" = 'payments_key:' || k."id"
)
UPDATE "idempotency_keys" i
   SET "scope" = m."scope"
  FROM "mapped" m
 WHERE i."id" = m."id"
   AND m."n" = 1
   AND NOT EXISTS (SELECT 1 FROM "idempotency_keys" e WHERE e."scope" = m."scope" AND e."key" = i."key");

WITH "mapped" AS (
  SELECT i."id",
         'partner:' || split_part(i."scope", ':', 2) AS "scope",
         row_number() OVER (PARTITION BY split_part(i."scope", ':', 2), i."key" ORDER BY i."created_at" DESC, i."id") AS "n"
    FROM "idempotency_keys" i
   WHERE i."scope" LIKE 'partner:%:client:%'
)
UPDATE "idempotency_keys" i
   SET "scope" = m."scope"
  FROM "mapped" m
 WHERE i."id" = m."id"
   AND m."n" = 1
   AND NOT EXISTS (SELECT 1 FROM "idempotency_keys" e WHERE e."scope" = m."scope" AND e."key" = i."key");
