-- +goose Up

-- payment_rails holds a tenant's payment provider (contract section 13): at
-- most one current row per tenant (retired_at null); no row means the
-- sandbox rail. Secrets are sealed (libs/sealer) bound to tenant and rail id,
-- and never leave the service. A retired rail is kept: transactions created
-- under it still settle through it (its webhook URL keeps working).
CREATE TABLE payment_rails (
    tenant_id              text        NOT NULL,
    id                     text        NOT NULL,
    provider               text        NOT NULL CHECK (provider IN ('stripe')),
    mode                   text        NOT NULL CHECK (mode IN ('test', 'live')),
    account_id             text        NOT NULL,
    publishable_key        text,
    secret_key_sealed      bytea       NOT NULL,
    secret_key_last4       text        NOT NULL,
    webhook_secret_sealed  bytea       NOT NULL,
    -- Stripe signs events of connected accounts (account.updated) with the
    -- secret of a Connect endpoint, which may differ.
    connect_webhook_secret_sealed bytea,
    created_at             timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL,
    retired_at             timestamptz,
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX payment_rails_current_idx ON payment_rails (tenant_id) WHERE retired_at IS NULL;
ALTER TABLE payment_rails ENABLE ROW LEVEL SECURITY;
ALTER TABLE payment_rails FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON payment_rails
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- rail_routes answers "which tenant owns this rail?" for a provider's
-- webhook, which carries only the rail id in its URL: ids only, no
-- row-level security (like link_routes). The rail is then read in that
-- tenant's scope and the signature checked with its secret.
CREATE TABLE rail_routes (
    rail_id   text PRIMARY KEY,
    tenant_id text NOT NULL
);

-- rail_events records the provider events a rail applied, so a replayed
-- webhook changes nothing.
CREATE TABLE rail_events (
    tenant_id  text        NOT NULL,
    rail_id    text        NOT NULL,
    event_id   text        NOT NULL,
    type       text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, rail_id, event_id)
);
ALTER TABLE rail_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE rail_events FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON rail_events
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- rail_accounts remembers the provider account of a payout recipient (a
-- Stripe connected account) by the recipient's phone, so a second payout
-- to the same person skips onboarding.
CREATE TABLE rail_accounts (
    tenant_id  text        NOT NULL,
    rail_id    text        NOT NULL,
    phone      text        NOT NULL CHECK (phone ~ '^\+[1-9][0-9]{6,14}$'),
    account_id text        NOT NULL,
    ready      boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, rail_id, phone)
);
CREATE UNIQUE INDEX rail_accounts_account_idx ON rail_accounts (tenant_id, rail_id, account_id);
ALTER TABLE rail_accounts ENABLE ROW LEVEL SECURITY;
ALTER TABLE rail_accounts FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON rail_accounts
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- A transaction keeps the rail that was current when it was created (a
-- rail change affects later transactions only) and the provider's id of
-- its payment or transfer. The trigger covers every insert path (single,
-- bulk, drafts) in the inserting tenant's scope.
ALTER TABLE transactions ADD COLUMN rail text NOT NULL DEFAULT 'sandbox' CHECK (rail IN ('sandbox', 'stripe'));
ALTER TABLE transactions ADD COLUMN rail_id text;
ALTER TABLE transactions ADD COLUMN provider_reference text;
CREATE INDEX transactions_provider_reference_idx ON transactions (tenant_id, provider_reference)
    WHERE provider_reference IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION transactions_set_rail() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT r.id, r.provider INTO NEW.rail_id, NEW.rail
      FROM payment_rails r WHERE r.tenant_id = NEW.tenant_id AND r.retired_at IS NULL;
    IF NEW.rail IS NULL THEN
        NEW.rail := 'sandbox';
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER transactions_set_rail BEFORE INSERT ON transactions
    FOR EACH ROW EXECUTE FUNCTION transactions_set_rail();

ALTER TABLE payables DROP CONSTRAINT payables_destination_type_check;
ALTER TABLE payables ADD CONSTRAINT payables_destination_type_check
    CHECK (destination_type IN ('bank_account', 'debit_card', 'stripe_account'));
-- A Stripe destination is the recipient's connected account: its last4 is
-- the account id's last four characters (the bank account stays at Stripe).
ALTER TABLE payables DROP CONSTRAINT payables_destination_last4_check;
ALTER TABLE payables ADD CONSTRAINT payables_destination_last4_check
    CHECK (destination_last4 ~ '^[0-9]{4}$' OR (destination_type = 'stripe_account' AND destination_last4 ~ '^[A-Za-z0-9]{4}$'));

-- +goose Down
ALTER TABLE payables DROP CONSTRAINT payables_destination_last4_check;
ALTER TABLE payables ADD CONSTRAINT payables_destination_last4_check CHECK (destination_last4 ~ '^[0-9]{4}$');
ALTER TABLE payables DROP CONSTRAINT payables_destination_type_check;
ALTER TABLE payables ADD CONSTRAINT payables_destination_type_check
    CHECK (destination_type IN ('bank_account', 'debit_card'));
DROP TRIGGER transactions_set_rail ON transactions;
DROP FUNCTION transactions_set_rail();
ALTER TABLE transactions DROP COLUMN provider_reference;
ALTER TABLE transactions DROP COLUMN rail_id;
ALTER TABLE transactions DROP COLUMN rail;
DROP TABLE rail_accounts;
DROP TABLE rail_events;
DROP TABLE rail_routes;
DROP TABLE payment_rails;
