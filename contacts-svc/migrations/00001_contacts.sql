-- +goose Up

-- Trigram similarity for name search (the AI gateway's resolve-contact).
-- pg_trgm is a trusted extension: the database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- phones holds one canonical record per E.164 number per tenant; contacts
-- point at it, and other services (suppression) name a number by its id.
CREATE TABLE phones (
    id         text        PRIMARY KEY,
    tenant_id  text        NOT NULL,
    e164       text        NOT NULL CHECK (e164 ~ '^\+[1-9][0-9]{6,14}$'),
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT phones_tenant_e164_key UNIQUE (tenant_id, e164),
    -- the target of contacts_phone_fkey (dropped in 00002)
    CONSTRAINT phones_tenant_id_key UNIQUE (tenant_id, id)
);

CREATE TABLE contacts (
    id            text        PRIMARY KEY,
    tenant_id     text        NOT NULL,
    external_id   text        CHECK (char_length(external_id) BETWEEN 1 AND 191),
    first_name    text        CHECK (char_length(first_name) BETWEEN 1 AND 100),
    last_name     text        CHECK (char_length(last_name) BETWEEN 1 AND 100),
    phone_id      text        NOT NULL,
    email         text        CHECK (char_length(email) BETWEEN 3 AND 254),
    custom_fields jsonb       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(custom_fields) = 'object'),
    full_name     text        NOT NULL GENERATED ALWAYS AS
                      (btrim(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))) STORED,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    deleted_at    timestamptz,
    CONSTRAINT contacts_phone_fkey FOREIGN KEY (tenant_id, phone_id) REFERENCES phones (tenant_id, id)
);

-- At most one live contact per phone record and per external id; the store
-- turns a violation into the 422 naming the field.
CREATE UNIQUE INDEX contacts_live_phone_key ON contacts (tenant_id, phone_id)
    WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX contacts_live_external_id_key ON contacts (tenant_id, external_id)
    WHERE deleted_at IS NULL AND external_id IS NOT NULL;
-- Lists (newest first) and their filters, trashed contacts included.
CREATE INDEX contacts_created_idx ON contacts (tenant_id, created_at DESC, id DESC);
CREATE INDEX contacts_phone_idx ON contacts (tenant_id, phone_id);
CREATE INDEX contacts_external_id_idx ON contacts (tenant_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX contacts_email_idx ON contacts (tenant_id, lower(email)) WHERE email IS NOT NULL;
CREATE INDEX contacts_full_name_trgm_idx ON contacts USING gin (full_name gin_trgm_ops);

CREATE TABLE contact_field_definitions (
    id         text        PRIMARY KEY,
    tenant_id  text        NOT NULL,
    key        text        NOT NULL CHECK (key ~ '^[a-z][a-z0-9_]{0,63}$'),
    label      text        NOT NULL CHECK (char_length(label) BETWEEN 1 AND 191),
    type       text        NOT NULL CHECK (type IN ('string', 'integer', 'number', 'boolean', 'date', 'enum')),
    options    text[]      CHECK ((type = 'enum') = (options IS NOT NULL)),
    required   boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT contact_field_definitions_key_key UNIQUE (tenant_id, key)
);

CREATE INDEX contact_field_definitions_created_idx ON contact_field_definitions (tenant_id, created_at DESC, id DESC);

-- contact_batch_rows records the outcome of every bulk-upsert row under
-- (batch_id, row_index): a batch worker that resumes gets the recorded
-- outcome back instead of writing the row twice.
CREATE TABLE contact_batch_rows (
    tenant_id  text        NOT NULL,
    batch_id   text        NOT NULL CHECK (char_length(batch_id) BETWEEN 1 AND 64),
    row_index  integer     NOT NULL CHECK (row_index >= 0),
    contact_id text,
    action     text        NOT NULL CHECK (action IN ('created', 'updated', 'skipped', 'failed')),
    errors     jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, batch_id, row_index)
);

-- Row-level security on every table: a session sees only the rows of the
-- tenant its transaction is scoped to (tenancy.Do), and none without a scope.
ALTER TABLE phones ENABLE ROW LEVEL SECURITY;
ALTER TABLE phones FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON phones
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE contacts ENABLE ROW LEVEL SECURITY;
ALTER TABLE contacts FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON contacts
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE contact_field_definitions ENABLE ROW LEVEL SECURITY;
ALTER TABLE contact_field_definitions FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON contact_field_definitions
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE contact_batch_rows ENABLE ROW LEVEL SECURITY;
ALTER TABLE contact_batch_rows FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON contact_batch_rows
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- +goose Down
DROP TABLE contact_batch_rows;
DROP TABLE contact_field_definitions;
DROP TABLE contacts;
DROP TABLE phones;
