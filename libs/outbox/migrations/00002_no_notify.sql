-- +goose Up
-- NOTIFY takes a database-wide lock from pre-commit until the commit is
-- flushed, so the trigger of 00001 made every transaction that wrote events
-- commit one at a time. The relay is now woken in-process after the commit
-- (Relay.Wake) and polls every PollInterval for the events of other processes.
DROP TRIGGER outbox_notify ON outbox;
DROP FUNCTION outbox_notify();

-- +goose Down
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
