-- +goose Up

-- item_transitions is the state history of each receivable and payable:
-- one row per change of status (from_status NULL for its creation), with
-- the item's updated_at of that change. A trigger writes it, so every path
-- that writes an item (single and bulk create, lifecycle actions, the
-- scheduler, rail webhooks) records its transitions in the same
-- transaction. The dashboard reads it over the internal activity route.
CREATE TABLE item_transitions (
    id          bigserial   PRIMARY KEY,
    tenant_id   text        NOT NULL,
    item_id     text        NOT NULL,
    direction   text        NOT NULL CHECK (direction IN ('receivable', 'payable')),
    from_status text,
    to_status   text        NOT NULL,
    at          timestamptz NOT NULL
);
CREATE INDEX item_transitions_item_idx ON item_transitions (tenant_id, item_id, id);

ALTER TABLE item_transitions ENABLE ROW LEVEL SECURITY;
ALTER TABLE item_transitions FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON item_transitions
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- +goose StatementBegin
CREATE FUNCTION record_item_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO item_transitions (tenant_id, item_id, direction, from_status, to_status, at)
    VALUES (NEW.tenant_id, NEW.id, TG_ARGV[0],
            CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, NEW.status, NEW.updated_at);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER receivables_created AFTER INSERT ON receivables
    FOR EACH ROW EXECUTE FUNCTION record_item_transition('receivable');
CREATE TRIGGER receivables_status AFTER UPDATE OF status ON receivables
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION record_item_transition('receivable');
CREATE TRIGGER payables_created AFTER INSERT ON payables
    FOR EACH ROW EXECUTE FUNCTION record_item_transition('payable');
CREATE TRIGGER payables_status AFTER UPDATE OF status ON payables
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION record_item_transition('payable');

-- The state of each SMS optin-svc reports (message.* events carry the
-- notification id), so an item's messages show their status and times for
-- as long as the notification is kept (7 days).
ALTER TABLE notifications
    ADD COLUMN message_status     text,
    ADD COLUMN message_sent_at    timestamptz,
    ADD COLUMN message_updated_at timestamptz;
CREATE INDEX notifications_item_idx ON notifications (tenant_id, item_id);

-- +goose Down
DROP INDEX notifications_item_idx;
ALTER TABLE notifications
    DROP COLUMN message_updated_at,
    DROP COLUMN message_sent_at,
    DROP COLUMN message_status;
DROP TRIGGER payables_status ON payables;
DROP TRIGGER payables_created ON payables;
DROP TRIGGER receivables_status ON receivables;
DROP TRIGGER receivables_created ON receivables;
DROP FUNCTION record_item_transition();
DROP TABLE item_transitions;
