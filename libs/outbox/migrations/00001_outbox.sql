-- +goose Up
-- Events waiting for the relay, written in the transaction of the change they
-- report. No row-level security: only the relay reads this table.
CREATE TABLE outbox (
    id           bigserial PRIMARY KEY,
    event_id     text NOT NULL,
    topic        text NOT NULL,
    key          text NOT NULL,
    tenant_id    text NOT NULL,
    payload      jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
CREATE INDEX outbox_published_at ON outbox (published_at) WHERE published_at IS NOT NULL;

-- Wake the relay when a transaction that wrote events commits (notifications
-- are delivered at commit, and one per transaction suffices).
-- +goose StatementBegin
CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();

-- +goose Down
DROP TABLE outbox;
DROP FUNCTION outbox_notify();
