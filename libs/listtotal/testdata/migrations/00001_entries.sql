-- +goose Up
CREATE TABLE entries (
    id        bigserial PRIMARY KEY,
    tenant_id text NOT NULL,
    status    text NOT NULL
);
CREATE INDEX entries_status_idx ON entries (tenant_id, status);
ALTER TABLE entries ENABLE ROW LEVEL SECURITY;
ALTER TABLE entries FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON entries
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- +goose Down
DROP TABLE entries;
