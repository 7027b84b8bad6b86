-- The operator's tenant lists (issue 36: GET /admin/v1/partners, /admin/v1/accounts,
-- /admin/v1/projects; docs/decisions.md 389–398). Each list is newest first (created_at,
-- then id, descending), read backwards along a (created_at, id) index, and takes a
-- `name_prefix` matched as `lower(name) LIKE lower($prefix) || '%'`, which a
-- `lower(name) text_pattern_ops` index serves as a range scan whatever the database's
-- collation. Tenants are few; the indexes keep a page's cost flat as they grow.

CREATE INDEX "partners_created_at_id_idx" ON "partners"("created_at", "id");
CREATE INDEX "partners_name_lower_idx" ON "partners"(lower("name") text_pattern_ops);

CREATE INDEX "payment_accounts_created_at_id_idx" ON "payment_accounts"("created_at", "id");
CREATE INDEX "payment_accounts_name_lower_idx" ON "payment_accounts"(lower("name") text_pattern_ops);

CREATE INDEX "vector_projects_created_at_id_idx" ON "vector_projects"("created_at", "id");
CREATE INDEX "vector_projects_name_lower_idx" ON "vector_projects"(lower("name") text_pattern_ops);
