-- +goose Up

-- transactions is the parent of each receivable and payable: its direction,
-- its contact, its campaign, and its status (a mirror of the child's). The
-- recipient's name and phone are copied from contacts-svc at creation, so
-- background sends (scheduled sends, follow-ups) need no call to it.
CREATE TABLE transactions (
    id                   text        PRIMARY KEY,
    tenant_id            text        NOT NULL,
    direction            text        NOT NULL CHECK (direction IN ('receivable', 'payable')),
    contact_id           text        NOT NULL,
    campaign_id          text,
    status               text        NOT NULL,
    recipient_first_name text,
    recipient_last_name  text,
    recipient_phone      text        NOT NULL CHECK (recipient_phone ~ '^\+[1-9][0-9]{6,14}$'),
    campaign_steps_sent  integer     NOT NULL DEFAULT 0 CHECK (campaign_steps_sent >= 0),
    last_sms_at          timestamptz,
    latest_message       jsonb,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL
);
CREATE INDEX transactions_contact_idx ON transactions (tenant_id, contact_id);

CREATE TABLE receivables (
    id                text        PRIMARY KEY,
    tenant_id         text        NOT NULL,
    transaction_id    text        NOT NULL UNIQUE REFERENCES transactions (id),
    contact_id        text        NOT NULL,
    external_id       text        CHECK (char_length(external_id) BETWEEN 1 AND 191),
    amount            bigint      NOT NULL CHECK (amount BETWEEN 1 AND 99999999),
    currency          text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    description       text        CHECK (char_length(description) BETWEEN 1 AND 500),
    due_date          date,
    status            text        NOT NULL CHECK (status IN
                          ('draft', 'scheduled', 'pending', 'processing', 'paid', 'failed', 'cancelled', 'expired')),
    send_at           timestamptz,
    link_ttl_hours    integer     NOT NULL CHECK (link_ttl_hours BETWEEN 1 AND 720),
    link_expires_at   timestamptz,
    link_revoked_at   timestamptz,
    custom_fields     jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(custom_fields) = 'object'),
    failure_reason    text,
    reference         text        CHECK (char_length(reference) BETWEEN 1 AND 191),
    payer_verified_at timestamptz,
    paid_at           timestamptz,
    payment_method    text        CHECK (payment_method IN ('card', 'out_of_band')),
    decline_count     integer     NOT NULL DEFAULT 0,
    card_brand        text,
    card_last4        text        CHECK (card_last4 ~ '^[0-9]{4}$'),
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    deleted_at        timestamptz
);
CREATE INDEX receivables_created_idx ON receivables (tenant_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX receivables_status_idx ON receivables (tenant_id, status) WHERE deleted_at IS NULL;
CREATE INDEX receivables_contact_idx ON receivables (tenant_id, contact_id);
CREATE INDEX receivables_external_id_idx ON receivables (tenant_id, external_id) WHERE external_id IS NOT NULL;

CREATE TABLE payables (
    id                    text        PRIMARY KEY,
    tenant_id             text        NOT NULL,
    transaction_id        text        NOT NULL UNIQUE REFERENCES transactions (id),
    contact_id            text        NOT NULL,
    external_id           text        CHECK (char_length(external_id) BETWEEN 1 AND 191),
    amount                bigint      NOT NULL CHECK (amount BETWEEN 1 AND 99999999),
    currency              text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    description           text        CHECK (char_length(description) BETWEEN 1 AND 500),
    due_date              date,
    status                text        NOT NULL CHECK (status IN
                              ('draft', 'scheduled', 'pending', 'destination_selected', 'verified', 'processing',
                               'disbursed', 'failed', 'cancelled', 'expired')),
    send_at               timestamptz,
    link_ttl_hours        integer     NOT NULL CHECK (link_ttl_hours BETWEEN 1 AND 720),
    link_expires_at       timestamptz,
    link_revoked_at       timestamptz,
    custom_fields         jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(custom_fields) = 'object'),
    failure_reason        text,
    reference             text        CHECK (char_length(reference) BETWEEN 1 AND 191),
    -- the destination: its type and last four digits only, never the number
    destination_type      text        CHECK (destination_type IN ('bank_account', 'debit_card')),
    destination_last4     text        CHECK (destination_last4 ~ '^[0-9]{4}$'),
    identity_verified_at  timestamptz,
    disbursed_at          timestamptz,
    disbursement_attempts integer     NOT NULL DEFAULT 0,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL,
    deleted_at            timestamptz,
    CHECK ((destination_type IS NULL) = (destination_last4 IS NULL))
);
CREATE INDEX payables_created_idx ON payables (tenant_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX payables_status_idx ON payables (tenant_id, status) WHERE deleted_at IS NULL;
CREATE INDEX payables_contact_idx ON payables (tenant_id, contact_id);
CREATE INDEX payables_external_id_idx ON payables (tenant_id, external_id) WHERE external_id IS NOT NULL;

-- attempts records every charge, identity check and disbursement the rail
-- answered (card and account numbers: last four digits only).
CREATE TABLE attempts (
    id             text        PRIMARY KEY,
    tenant_id      text        NOT NULL,
    item_id        text        NOT NULL,
    kind           text        NOT NULL CHECK (kind IN ('charge', 'identity_check', 'disbursement')),
    outcome        text        NOT NULL,
    brand          text,
    last4          text        CHECK (last4 ~ '^[0-9]{4}$'),
    failure_reason text,
    created_at     timestamptz NOT NULL
);
CREATE INDEX attempts_item_idx ON attempts (tenant_id, item_id, created_at);

CREATE TABLE transaction_field_definitions (
    id         text        PRIMARY KEY,
    tenant_id  text        NOT NULL,
    key        text        NOT NULL CHECK (key ~ '^[a-z][a-z0-9_]{0,63}$'),
    label      text        NOT NULL CHECK (char_length(label) BETWEEN 1 AND 191),
    type       text        NOT NULL CHECK (type IN ('string', 'integer', 'number', 'boolean', 'date', 'enum')),
    options    text[]      CHECK ((type = 'enum') = (options IS NOT NULL)),
    required   boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT transaction_field_definitions_key_key UNIQUE (tenant_id, key)
);
CREATE INDEX transaction_field_definitions_created_idx
    ON transaction_field_definitions (tenant_id, created_at DESC, id DESC);

CREATE TABLE campaigns (
    id         text        PRIMARY KEY,
    tenant_id  text        NOT NULL,
    name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 191),
    direction  text        NOT NULL CHECK (direction IN ('receivable', 'payable')),
    status     text        NOT NULL CHECK (status IN ('draft', 'published', 'archived')),
    is_active  boolean     NOT NULL,
    priority   integer     NOT NULL,
    steps      jsonb       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(steps) = 'array'),
    rules      jsonb       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(rules) = 'array'),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted_at timestamptz
);
CREATE INDEX campaigns_created_idx ON campaigns (tenant_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX campaigns_assignable_idx ON campaigns (tenant_id, direction, priority DESC, created_at)
    WHERE deleted_at IS NULL AND status = 'published' AND is_active;

-- Row-level security on every tenant table: a session sees only the rows of
-- the tenant its transaction is scoped to, and none without a scope.
ALTER TABLE transactions ENABLE ROW LEVEL SECURITY;
ALTER TABLE transactions FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON transactions
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE receivables ENABLE ROW LEVEL SECURITY;
ALTER TABLE receivables FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON receivables
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE payables ENABLE ROW LEVEL SECURITY;
ALTER TABLE payables FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON payables
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE attempts ENABLE ROW LEVEL SECURITY;
ALTER TABLE attempts FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON attempts
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE transaction_field_definitions ENABLE ROW LEVEL SECURITY;
ALTER TABLE transaction_field_definitions FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON transaction_field_definitions
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE campaigns ENABLE ROW LEVEL SECURITY;
ALTER TABLE campaigns FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON campaigns
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- Two infrastructure tables hold ids only, no tenant data, and have no
-- row-level security, because their readers have no tenant yet:
--
-- link_routes answers "which tenant owns this receivable or payable?" for
-- a hosted-page request, which carries only the item id (after its link
-- signature was verified). The page then reads the item in that tenant's
-- scope, under row-level security like any request.
CREATE TABLE link_routes (
    item_id   text PRIMARY KEY,
    tenant_id text NOT NULL,
    direction text NOT NULL CHECK (direction IN ('receivable', 'payable'))
);

-- due_work is the scheduler's queue: one row per (item, kind) with the
-- instant it is due. Replicas claim due rows with FOR UPDATE SKIP LOCKED, then
-- do the work in the row's tenant scope, where the item's state is checked
-- again: a row is a wake-up call, never the decision.
CREATE TABLE due_work (
    item_id   text        NOT NULL,
    kind      text        NOT NULL CHECK (kind IN ('send', 'link_expiry', 'draft_expiry', 'follow_up')),
    tenant_id text        NOT NULL,
    direction text        NOT NULL CHECK (direction IN ('receivable', 'payable')),
    due_at    timestamptz NOT NULL,
    attempts  integer     NOT NULL DEFAULT 0,
    PRIMARY KEY (item_id, kind)
);
CREATE INDEX due_work_due_idx ON due_work (due_at);

-- +goose Down
DROP TABLE due_work;
DROP TABLE link_routes;
DROP TABLE campaigns;
DROP TABLE transaction_field_definitions;
DROP TABLE attempts;
DROP TABLE payables;
DROP TABLE receivables;
DROP TABLE transactions;
