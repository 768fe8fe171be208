-- +goose Up

-- transaction_batch_rows records the outcome of every bulk-create row under
-- (batch_id, row_index), in the transaction that writes the row: a batch
-- worker that resumes or retries a chunk gets the recorded outcome back
-- instead of writing the row twice.
CREATE TABLE transaction_batch_rows (
    tenant_id  text        NOT NULL,
    batch_id   text        NOT NULL CHECK (char_length(batch_id) BETWEEN 1 AND 64),
    row_index  integer     NOT NULL CHECK (row_index >= 0),
    direction  text        NOT NULL CHECK (direction IN ('receivable', 'payable')),
    item_id    text,
    action     text        NOT NULL CHECK (action IN ('created', 'updated', 'skipped', 'failed')),
    errors     jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, batch_id, row_index)
);

ALTER TABLE transaction_batch_rows ENABLE ROW LEVEL SECURITY;
ALTER TABLE transaction_batch_rows FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON transaction_batch_rows
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- +goose Down
DROP TABLE transaction_batch_rows;
