-- +goose Up
-- A tenant's webhook endpoints. The signing secret is stored sealed
-- (AES-256-GCM, key from WEBHOOK_ENCRYPTION_KEY), never in plaintext; the
-- previous secret keeps signing for 24 h after a rotation. Deleted endpoints
-- stay (deleted_at) so their delivery history keeps its parent.
CREATE TABLE endpoints (
    tenant_id             text        NOT NULL,
    id                    text        NOT NULL,
    name                  text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
    url                   text        NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
    subscribed_events     text[]      NOT NULL CHECK (cardinality(subscribed_events) > 0),
    is_active             boolean     NOT NULL DEFAULT true,
    secret                bytea       NOT NULL,
    previous_secret       bytea,
    previous_secret_until timestamptz,
    consecutive_failures  integer     NOT NULL DEFAULT 0,
    last_succeeded_at     timestamptz,
    last_failed_at        timestamptz,
    disabled_at           timestamptz,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL,
    deleted_at            timestamptz,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX endpoints_listed ON endpoints (tenant_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- Events received for the tenant, stored once (the exact body every delivery
-- of the event sends) when at least one endpoint subscribes to them.
CREATE TABLE events (
    tenant_id  text        NOT NULL,
    id         text        NOT NULL,
    type       text        NOT NULL,
    body       text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

-- One delivery per (event, endpoint).
CREATE TABLE deliveries (
    tenant_id       text        NOT NULL,
    id              text        NOT NULL,
    endpoint_id     text        NOT NULL,
    event_id        text        NOT NULL,
    event_type      text        NOT NULL,
    status          text        NOT NULL CHECK (status IN ('pending', 'succeeded', 'retrying', 'failed', 'cancelled')),
    attempt_count   integer     NOT NULL DEFAULT 0,
    response_status integer,
    last_error      text,
    next_attempt_at timestamptz,
    delivered_at    timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT deliveries_once UNIQUE (tenant_id, endpoint_id, event_id),
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES endpoints (tenant_id, id),
    FOREIGN KEY (tenant_id, event_id) REFERENCES events (tenant_id, id)
);
CREATE INDEX deliveries_listed ON deliveries (tenant_id, endpoint_id, created_at DESC, id DESC);
CREATE INDEX deliveries_open ON deliveries (tenant_id, endpoint_id) WHERE status IN ('pending', 'retrying');

-- Every HTTP attempt of a delivery.
CREATE TABLE attempts (
    tenant_id       text        NOT NULL,
    delivery_id     text        NOT NULL,
    number          integer     NOT NULL,
    succeeded       boolean     NOT NULL,
    response_status integer,
    error           text,
    attempted_at    timestamptz NOT NULL,
    duration_ms     integer     NOT NULL,
    PRIMARY KEY (tenant_id, delivery_id, number),
    FOREIGN KEY (tenant_id, delivery_id) REFERENCES deliveries (tenant_id, id)
);

ALTER TABLE endpoints ENABLE ROW LEVEL SECURITY;
ALTER TABLE endpoints FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON endpoints
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
ALTER TABLE events ENABLE ROW LEVEL SECURITY;
ALTER TABLE events FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON events
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
ALTER TABLE deliveries ENABLE ROW LEVEL SECURITY;
ALTER TABLE deliveries FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON deliveries
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
ALTER TABLE attempts ENABLE ROW LEVEL SECURITY;
ALTER TABLE attempts FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON attempts
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- The dispatcher's work queue across tenants: which delivery is due when,
-- and which dispatcher holds it (claim_token, until due_at, the lease). It
-- holds ids and times only, no customer data, so it carries no row-level
-- security: the dispatcher claims from it without a tenant scope, then reads
-- and writes the delivery itself in a transaction scoped to its tenant.
CREATE TABLE delivery_queue (
    delivery_id text        PRIMARY KEY,
    tenant_id   text        NOT NULL,
    due_at      timestamptz NOT NULL,
    claim_token text
);
CREATE INDEX delivery_queue_due ON delivery_queue (due_at);

-- Wake the dispatchers when deliveries are queued (delivered at commit).
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

-- +goose Down
DROP TABLE delivery_queue;
DROP FUNCTION delivery_queue_notify();
DROP TABLE attempts;
DROP TABLE deliveries;
DROP TABLE events;
DROP TABLE endpoints;
