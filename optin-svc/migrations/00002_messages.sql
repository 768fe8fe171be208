-- +goose Up

-- messages holds every SMS the service sends (or refuses to send): one per
-- (tenant, notification_id), so a redelivered notification sends nothing
-- twice. The sink provider's messages are read back from here on the admin
-- plane.
CREATE TABLE messages (
    id                  text        PRIMARY KEY,
    tenant_id           text        NOT NULL,
    notification_id     text        NOT NULL CHECK (char_length(notification_id) BETWEEN 1 AND 128),
    kind                text        NOT NULL CHECK (char_length(kind) BETWEEN 1 AND 64),
    transaction_id      text,
    contact_id          text,
    to_phone            text        NOT NULL,
    from_phone          text,
    body                text        NOT NULL,
    status              text        NOT NULL CHECK (status IN ('queued', 'sent', 'delivered', 'failed', 'suppressed')),
    provider            text        NOT NULL,
    provider_message_id text,
    attempts            integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    failure_reason      text,
    sent_at             timestamptz,
    delivered_at        timestamptz,
    failed_at           timestamptz,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    CONSTRAINT messages_notification_key UNIQUE (tenant_id, notification_id)
);

CREATE INDEX messages_to_idx ON messages (tenant_id, to_phone, created_at DESC, id DESC);
CREATE INDEX messages_created_idx ON messages (tenant_id, created_at DESC, id DESC);

ALTER TABLE messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE messages FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON messages
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- send_queue lists the messages waiting for a provider call, across
-- tenants: the dispatcher leases due rows (FOR UPDATE SKIP LOCKED), then
-- works on each message inside its tenant's scope. Infrastructure table:
-- no row-level security, never read by a request.
CREATE TABLE send_queue (
    message_id   text        PRIMARY KEY,
    tenant_id    text        NOT NULL,
    due_at       timestamptz NOT NULL,
    leased_until timestamptz
);

CREATE INDEX send_queue_due_idx ON send_queue (due_at);

-- tenants is the local copy of identity-svc's tenants (tenant.updated):
-- the sender number of each tenant, which also routes inbound SMS to their
-- tenant. source_updated_at orders events that arrive out of order.
CREATE TABLE tenants (
    tenant_id         text        PRIMARY KEY,
    name              text        NOT NULL DEFAULT '',
    sms_number        text        UNIQUE,
    default_region    text        NOT NULL DEFAULT '',
    source_updated_at timestamptz NOT NULL
);

-- conversations remembers which tenant last wrote to a number from a
-- shared sender number, so a reply to the deployment's default sender
-- reaches that tenant.
CREATE TABLE conversations (
    from_phone   text        NOT NULL,
    to_phone     text        NOT NULL,
    tenant_id    text        NOT NULL,
    last_sent_at timestamptz NOT NULL,
    PRIMARY KEY (from_phone, to_phone)
);

-- +goose Down
DROP TABLE conversations;
DROP TABLE tenants;
DROP TABLE send_queue;
DROP TABLE messages;
