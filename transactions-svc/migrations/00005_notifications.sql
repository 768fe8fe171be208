-- +goose Up

-- notifications keeps the SMS transactions-svc asked for: the recipient's
-- number and the text (which may carry a signed link). The
-- notification.requested event carries only the id; optin-svc fetches the
-- rest over GET /internal/v1/notifications/{id}, within the tenant, when it
-- records the message. Written in the transaction of the outbox row.
CREATE TABLE notifications (
    tenant_id  text        NOT NULL,
    id         text        NOT NULL,
    item_id    text        NOT NULL,
    direction  text        NOT NULL CHECK (direction IN ('receivable', 'payable')),
    kind       text        NOT NULL,
    to_phone   text        NOT NULL,
    body       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);

ALTER TABLE notifications ENABLE ROW LEVEL SECURITY;
ALTER TABLE notifications FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON notifications
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- A notification is needed until optin-svc has consumed its event, which
-- may wait while optin-svc is down; after 7 days it is deleted by the
-- cleanup that runs without a tenant scope (tenancy.DeleteExpired), which
-- this policy limits to such rows. An event read later records a failed
-- message (notification_unavailable).
CREATE POLICY expired_cleanup ON notifications FOR DELETE
    USING (created_at < now() - interval '7 days');
CREATE INDEX notifications_created_brin ON notifications USING brin (created_at);

-- +goose Down
DROP TABLE notifications;
