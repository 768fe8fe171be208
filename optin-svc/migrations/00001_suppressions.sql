-- +goose Up

-- suppressions lists the numbers that must not receive messages on a
-- channel: one entry per (tenant, number, channel). source says who put it
-- there; only the recipient's START lifts an inbound_stop entry.
CREATE TABLE suppressions (
    id               text        PRIMARY KEY,
    tenant_id        text        NOT NULL,
    phone            text        NOT NULL CHECK (phone ~ '^\+[1-9][0-9]{6,14}$'),
    contact_phone_id text        CHECK (char_length(contact_phone_id) BETWEEN 1 AND 64),
    reason           text        NOT NULL CHECK (reason IN ('manual', 'bounce', 'complaint')),
    channel          text        NOT NULL CHECK (channel IN ('sms', 'email')),
    source           text        NOT NULL CHECK (source IN ('api', 'inbound_stop', 'bounce')),
    created_at       timestamptz NOT NULL,
    CONSTRAINT suppressions_phone_channel_key UNIQUE (tenant_id, phone, channel)
);

CREATE INDEX suppressions_list_idx ON suppressions (tenant_id, channel, created_at DESC, id DESC);

ALTER TABLE suppressions ENABLE ROW LEVEL SECURITY;
ALTER TABLE suppressions FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON suppressions
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- +goose Down
DROP TABLE suppressions;
