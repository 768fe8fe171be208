-- +goose Up
-- Cleanup finds expired keys by created_at. A B-tree on it took an entry in
-- its rightmost page, which every guarded write of the database shares, for
-- each key; keys are written in time order, so a block-range index answers
-- the same range query and costs a write nothing until its range is full.
DROP INDEX idempotency_keys_created_idx;
CREATE INDEX idempotency_keys_created_brin ON idempotency_keys USING brin (created_at);

-- +goose Down
DROP INDEX idempotency_keys_created_brin;
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
