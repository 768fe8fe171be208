-- +goose NO TRANSACTION
-- +goose Up
-- A bulk-upsert row's recorded outcome is needed while batch-svc may retry
-- its chunk (at most BATCH_RETRY_FOR, 1 h by default, after the failure);
-- after 7 days it is deleted by the cleanup that runs without a tenant scope
-- (tenancy.DeleteExpired), which this policy limits to such rows.
DROP POLICY IF EXISTS expired_cleanup ON contact_batch_rows;
CREATE POLICY expired_cleanup ON contact_batch_rows FOR DELETE
    USING (created_at < now() - interval '7 days');
DROP INDEX CONCURRENTLY IF EXISTS contact_batch_rows_created_brin;
CREATE INDEX CONCURRENTLY contact_batch_rows_created_brin ON contact_batch_rows USING brin (created_at);

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS contact_batch_rows_created_brin;
DROP POLICY IF EXISTS expired_cleanup ON contact_batch_rows;
