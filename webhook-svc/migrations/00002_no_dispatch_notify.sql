-- +goose Up
-- The ingester wakes its own replica's dispatcher in-process after it
-- commits, and every dispatcher polls the queue for the rest. The NOTIFY
-- this trigger sent made commits that queued deliveries wait for each other
-- (NOTIFY holds a database-wide lock from pre-commit until the commit is
-- flushed), so it goes.
DROP TRIGGER delivery_queue_notify ON delivery_queue;
DROP FUNCTION delivery_queue_notify();

-- +goose Down
-- +goose StatementBegin
CREATE FUNCTION delivery_queue_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('webhook_dispatch', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER delivery_queue_notify AFTER INSERT ON delivery_queue
    FOR EACH STATEMENT EXECUTE FUNCTION delivery_queue_notify();
