-- +goose Up

-- sessions are the dashboard's signed-in browsers. A session is found by
-- the SHA-256 of its cookie before its tenant is known, so, like a routing
-- table, it has no row-level security; it holds ids and hashes only, and
-- every read of tenant data goes through the owning service with the
-- user's internal token.
CREATE TABLE sessions (
    id_sha256    bytea       PRIMARY KEY CHECK (length(id_sha256) = 32),
    tenant_id    text        NOT NULL,
    user_id      text        NOT NULL,
    csrf_token   text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user_idx ON sessions (tenant_id, user_id);
CREATE INDEX sessions_last_seen_idx ON sessions (last_seen_at);

-- +goose Down
DROP TABLE sessions;
