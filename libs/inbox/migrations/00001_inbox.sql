-- +goose Up
-- Event ids a consumer has applied, claimed in the transaction that applies
-- the event, so a redelivered event is recognised and skipped. No row-level
-- security: only consumers touch this table.
CREATE TABLE inbox (
    consumer    text NOT NULL,
    event_id    text NOT NULL,
    tenant_id   text DEFAULT NULLIF(current_setting('app.tenant_id', true), ''),
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);
CREATE INDEX inbox_received_at ON inbox (received_at);

-- +goose Down
DROP TABLE inbox;
