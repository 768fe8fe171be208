-- +goose Up

-- tenants keeps what the hosted pages show of each tenant: its display
-- name, learnt from identity-svc's tenant.updated events (no service reads
-- another's database). updated_at is the tenant's own, so a late or replayed
-- event never replaces a newer name.
CREATE TABLE tenants (
    tenant_id    text        PRIMARY KEY,
    display_name text        NOT NULL CHECK (length(display_name) <= 200),
    updated_at   timestamptz NOT NULL
);

ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenants FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenants
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- +goose Down
DROP TABLE tenants;
