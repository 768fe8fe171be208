-- +goose Up

-- opt_in_codes are the tenants' QR-code campaigns: each has a public code
-- (the last segment of its landing page URL /l/o/{code}); at most one per
-- tenant is the default.
CREATE TABLE opt_in_codes (
    id            text        PRIMARY KEY,
    tenant_id     text        NOT NULL,
    code          text        NOT NULL CHECK (code ~ '^[a-z0-9]{6,32}$'),
    name          text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 191),
    is_live       boolean     NOT NULL,
    is_default    boolean     NOT NULL,
    double_opt_in boolean     NOT NULL,
    scan_count    bigint      NOT NULL DEFAULT 0 CHECK (scan_count >= 0),
    opt_in_count  bigint      NOT NULL DEFAULT 0 CHECK (opt_in_count >= 0),
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    CONSTRAINT opt_in_codes_code_key UNIQUE (code),
    CONSTRAINT opt_in_codes_tenant_id_key UNIQUE (tenant_id, id)
);

CREATE UNIQUE INDEX opt_in_codes_default_key ON opt_in_codes (tenant_id) WHERE is_default;
CREATE INDEX opt_in_codes_list_idx ON opt_in_codes (tenant_id, is_default DESC, created_at DESC, id DESC);

-- landing_codes routes a public code to its tenant: the landing page
-- learns the tenant from it. Infrastructure table: no row-level security.
CREATE TABLE landing_codes (
    code            text PRIMARY KEY,
    tenant_id       text NOT NULL,
    opt_in_code_id  text NOT NULL
);

-- consents are the SMS opt-ins of contacts' numbers: pending (double
-- opt-in awaiting YES), confirmed or revoked. A number has at most one
-- live (pending or confirmed) consent per channel.
CREATE TABLE consents (
    id             text        PRIMARY KEY,
    tenant_id      text        NOT NULL,
    contact_id     text        NOT NULL,
    phone          text        NOT NULL CHECK (phone ~ '^\+[1-9][0-9]{6,14}$'),
    opt_in_code_id text,
    status         text        NOT NULL CHECK (status IN ('pending', 'confirmed', 'revoked')),
    channel        text        NOT NULL CHECK (channel = 'sms'),
    source         text        NOT NULL CHECK (source IN ('landing_page', 'inbound_sms')),
    consented_at   timestamptz NOT NULL,
    confirmed_at   timestamptz,
    revoked_at     timestamptz,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    CONSTRAINT consents_code_fkey FOREIGN KEY (tenant_id, opt_in_code_id) REFERENCES opt_in_codes (tenant_id, id)
);

CREATE UNIQUE INDEX consents_live_phone_key ON consents (tenant_id, phone, channel)
    WHERE status IN ('pending', 'confirmed');
CREATE INDEX consents_list_idx ON consents (tenant_id, consented_at DESC, id DESC);
CREATE INDEX consents_contact_idx ON consents (tenant_id, contact_id);
CREATE INDEX consents_phone_idx ON consents (tenant_id, phone);

ALTER TABLE opt_in_codes ENABLE ROW LEVEL SECURITY;
ALTER TABLE opt_in_codes FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON opt_in_codes
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE consents ENABLE ROW LEVEL SECURITY;
ALTER TABLE consents FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON consents
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- +goose Down
DROP TABLE consents;
DROP TABLE landing_codes;
DROP TABLE opt_in_codes;
