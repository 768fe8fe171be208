-- +goose Up
-- memos expire after a day: an unscoped session may delete those, and only those.
CREATE TABLE memos (
    id         bigserial   PRIMARY KEY,
    tenant_id  text        NOT NULL,
    body       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE memos ENABLE ROW LEVEL SECURITY;
ALTER TABLE memos FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memos
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
CREATE POLICY expired_cleanup ON memos FOR DELETE
    USING (created_at < now() - interval '1 day');

-- +goose Down
DROP TABLE memos;
