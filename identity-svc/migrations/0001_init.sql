-- +goose Up

-- tenants is the deployment's central routing table: every other service
-- keys its data by these ids. It has no row-level security because it is
-- the table that decides the tenant (only the operator plane and token
-- introspection read it, never a tenant's request).
CREATE TABLE tenants (
    id                           text        PRIMARY KEY,
    name                         text        NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
    default_currency             text        NOT NULL DEFAULT 'USD' CHECK (default_currency ~ '^[A-Z]{3}$'),
    default_region               text        NOT NULL DEFAULT 'US' CHECK (default_region ~ '^[A-Z]{2}$'),
    sms_number                   text,
    ai_gateway                   boolean     NOT NULL DEFAULT false,
    opt_in                       boolean     NOT NULL DEFAULT false,
    -- limit overrides; NULL means the deployment default
    api_requests_per_minute      integer     CHECK (api_requests_per_minute > 0),
    batch_submissions_per_minute integer     CHECK (batch_submissions_per_minute > 0),
    batches_in_flight            integer     CHECK (batches_in_flight > 0),
    created_at                   timestamptz NOT NULL DEFAULT now(),
    updated_at                   timestamptz NOT NULL DEFAULT now()
);

-- Inbound SMS is routed to a tenant by the number it was sent to.
CREATE UNIQUE INDEX tenants_sms_number_key ON tenants (sms_number) WHERE sms_number IS NOT NULL;
CREATE INDEX tenants_created_idx ON tenants (created_at DESC, id DESC);

-- token_routes maps a token's number (the <id> of pl_<id>|<secret>) to its
-- tenant. Like tenants it is a routing table without row-level security:
-- introspection reads it before it knows the tenant.
CREATE TABLE token_routes (
    id         bigserial   PRIMARY KEY,
    tenant_id  text        NOT NULL REFERENCES tenants (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT token_routes_id_tenant_key UNIQUE (id, tenant_id)
);

-- tokens holds the tenant-scoped part of a token: only the secret's SHA-256.
CREATE TABLE tokens (
    id            bigint      PRIMARY KEY,
    tenant_id     text        NOT NULL REFERENCES tenants (id),
    name          text        NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
    abilities     text[]      NOT NULL,
    secret_sha256 bytea       NOT NULL CHECK (length(secret_sha256) = 32),
    expires_at    timestamptz,
    revoked_at    timestamptz,
    last_used_at  timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- a token row can only live in the tenant its route names
    CONSTRAINT tokens_route_fkey FOREIGN KEY (id, tenant_id) REFERENCES token_routes (id, tenant_id)
);

CREATE INDEX tokens_tenant_created_idx ON tokens (tenant_id, created_at DESC, id DESC);

ALTER TABLE tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE tokens FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tokens
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- +goose Down
DROP TABLE tokens;
DROP TABLE token_routes;
DROP TABLE tenants;
