-- +goose NO TRANSACTION
-- +goose Up
-- Cleanup finds expired keys by created_at. A B-tree on it took an entry in
-- its rightmost page, which every guarded write of the database shares, for
-- each key; keys are written in time order, so a block-range index answers
-- the same range query and costs a write nothing until its range is full.
-- Built CONCURRENTLY, so guarded writes go on meanwhile.
DROP INDEX CONCURRENTLY IF EXISTS idempotency_keys_created_brin;
CREATE INDEX CONCURRENTLY idempotency_keys_created_brin ON idempotency_keys USING brin (created_at);
DROP INDEX CONCURRENTLY IF EXISTS idempotency_keys_created_idx;

-- +goose Down
CREATE INDEX CONCURRENTLY IF NOT EXISTS idempotency_keys_created_idx ON idempotency_keys (created_at);
DROP INDEX CONCURRENTLY IF EXISTS idempotency_keys_created_brin;
