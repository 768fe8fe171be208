-- +goose Up

-- batches are the headers of submitted batches. Counters advance after
-- every chunk a worker records (see batch_chunks).
CREATE TABLE batches (
    id              text        PRIMARY KEY,
    tenant_id       text        NOT NULL,
    type            text        NOT NULL CHECK (type IN ('contacts', 'receivables', 'payables')),
    status          text        NOT NULL CHECK (status IN ('queued', 'processing', 'completed', 'partial_failure', 'failed')),
    total_items     integer     NOT NULL CHECK (total_items BETWEEN 1 AND 10000),
    processed_items integer     NOT NULL DEFAULT 0,
    succeeded_items integer     NOT NULL DEFAULT 0,
    failed_items    integer     NOT NULL DEFAULT 0,
    options         jsonb       NOT NULL,
    failure_reason  text,
    started_at      timestamptz,
    completed_at    timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);

CREATE INDEX batches_list_idx ON batches (tenant_id, created_at DESC, id DESC);
-- The submit's limits count the tenant's batches in flight and of the last minute.
CREATE INDEX batches_in_flight_idx ON batches (tenant_id) WHERE status IN ('queued', 'processing');

-- batch_chunks hold a batch's items as submitted, at most 500 per chunk
-- (items: a JSON array of the raw items, rows first_row_index onwards),
-- only while the batch is processed: the transaction that finishes the
-- batch deletes them (customer data kept no longer than needed).
-- A chunk is done once its results are recorded: the worker marks it in the
-- transaction that records its row errors and advances the counters, so a
-- resumed batch neither skips nor counts a chunk twice.
CREATE TABLE batch_chunks (
    tenant_id       text    NOT NULL,
    batch_id        text    NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    chunk_index     integer NOT NULL,
    first_row_index integer NOT NULL,
    item_count      integer NOT NULL CHECK (item_count BETWEEN 1 AND 500),
    items           text    NOT NULL,
    done            boolean NOT NULL DEFAULT false,
    PRIMARY KEY (batch_id, chunk_index)
);

-- batch_errors are the rejected rows' messages: one row per field message.
CREATE TABLE batch_errors (
    tenant_id   text    NOT NULL,
    batch_id    text    NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    row_index   integer NOT NULL,
    seq         integer NOT NULL,
    external_id text    NOT NULL DEFAULT '',
    field       text    NOT NULL,
    message     text    NOT NULL,
    PRIMARY KEY (batch_id, row_index, seq)
);

ALTER TABLE batches ENABLE ROW LEVEL SECURITY;
ALTER TABLE batches FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON batches
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
ALTER TABLE batch_chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE batch_chunks FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON batch_chunks
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
ALTER TABLE batch_errors ENABLE ROW LEVEL SECURITY;
ALTER TABLE batch_errors FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON batch_errors
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- The workers' queue across tenants: which batch waits or runs, and which
-- worker holds it (lease_token, until lease_until). It holds ids and times
-- only, no customer data, so it carries no row-level security: a worker
-- claims from it without a tenant scope, then reads and writes the batch in
-- a transaction scoped to its tenant. A worker that dies stops renewing its
-- lease and another takes the batch over when it expires.
CREATE TABLE batch_queue (
    batch_id    text        PRIMARY KEY,
    tenant_id   text        NOT NULL,
    lease_until timestamptz NOT NULL,
    lease_token text
);
CREATE INDEX batch_queue_due ON batch_queue (lease_until);

-- +goose Down
DROP TABLE batch_queue;
DROP TABLE batch_errors;
DROP TABLE batch_chunks;
DROP TABLE batches;
