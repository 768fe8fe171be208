-- +goose Up

-- stopped_at records that the recipient's STOP holds an entry of another
-- source. A STOP that finds the number already suppressed (by the API or a
-- bounce) leaves the entry's source as it is but sets stopped_at, so the
-- API can no longer lift it; the recipient's START clears it again. An
-- inbound_stop entry is held by its source alone (stopped_at stays null).
ALTER TABLE suppressions ADD COLUMN stopped_at timestamptz;

-- +goose Down
ALTER TABLE suppressions DROP COLUMN stopped_at;
