-- +goose Up
-- The relay deletes a row once Kafka has it instead of marking it published:
-- the mark rewrote the whole row (payload included) and added two index
-- entries for every event, and the 24 h of published copies were never read.
-- Every row in the table now waits to be published, in id order (the
-- primary key), so the partial indexes and the column go.
DELETE FROM outbox WHERE published_at IS NOT NULL;
DROP INDEX outbox_unpublished;
DROP INDEX outbox_published_at;
ALTER TABLE outbox DROP COLUMN published_at;

-- +goose Down
ALTER TABLE outbox ADD COLUMN published_at timestamptz;
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
CREATE INDEX outbox_published_at ON outbox (published_at) WHERE published_at IS NOT NULL;
