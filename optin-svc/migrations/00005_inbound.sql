-- +goose Up

-- inbound_messages records each inbound SMS once (by the provider's
-- message id), so a redelivered callback changes nothing twice. Only the
-- keyword is kept, not the text.
CREATE TABLE inbound_messages (
    id          text        PRIMARY KEY,
    tenant_id   text        NOT NULL,
    message_sid text        NOT NULL CHECK (char_length(message_sid) BETWEEN 1 AND 64),
    from_phone  text        NOT NULL,
    keyword     text        NOT NULL,
    created_at  timestamptz NOT NULL,
    CONSTRAINT inbound_messages_sid_key UNIQUE (tenant_id, message_sid)
);

ALTER TABLE inbound_messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE inbound_messages FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON inbound_messages
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- +goose Down
DROP TABLE inbound_messages;
