-- +goose Up

-- roles are a tenant's named sets of abilities; every tenant gets the four
-- defaults (owner, developer, finance, support) when it is created.
CREATE TABLE roles (
    tenant_id  text        NOT NULL REFERENCES tenants (id),
    name       text        NOT NULL CHECK (name ~ '^[a-z][a-z0-9_-]{0,63}$'),
    abilities  text[]      NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, name)
);

-- users sign in to their tenant's dashboard. password_hash is an argon2id
-- PHC string, NULL until the user follows the set-password link.
CREATE TABLE users (
    id              text        PRIMARY KEY,
    tenant_id       text        NOT NULL REFERENCES tenants (id),
    email           text        NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    name            text        NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
    role            text        NOT NULL,
    password_hash   text,
    disabled_at     timestamptz,
    last_sign_in_at timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_tenant_email_key UNIQUE (tenant_id, email),
    CONSTRAINT users_role_fkey FOREIGN KEY (tenant_id, role) REFERENCES roles (tenant_id, name)
);
CREATE INDEX users_tenant_created_idx ON users (tenant_id, created_at DESC, id DESC);

ALTER TABLE roles ENABLE ROW LEVEL SECURITY;
ALTER TABLE roles FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON roles
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
ALTER TABLE users ENABLE ROW LEVEL SECURITY;
ALTER TABLE users FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON users
    USING (tenant_id = current_setting('app.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

-- user_routes maps a sign-in email to the tenants that have a user with it:
-- like token_routes, a routing table read before the tenant is known, so it
-- has no row-level security and holds ids and the email only.
CREATE TABLE user_routes (
    user_id   text PRIMARY KEY,
    tenant_id text NOT NULL REFERENCES tenants (id),
    email     text NOT NULL
);
CREATE INDEX user_routes_email_idx ON user_routes (email);

-- password_links are one-time set-password links: only the SHA-256 of the
-- secret, read by that hash before the tenant is known.
CREATE TABLE password_links (
    secret_sha256 bytea       PRIMARY KEY CHECK (length(secret_sha256) = 32),
    user_id       text        NOT NULL,
    tenant_id     text        NOT NULL REFERENCES tenants (id),
    expires_at    timestamptz NOT NULL,
    used_at       timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_links_user_idx ON password_links (user_id);

-- sign_in_attempts counts failed sign-ins per email for the lockout
-- (5 failures in 15 minutes lock the email for 15 minutes).
CREATE TABLE sign_in_attempts (
    email             text        PRIMARY KEY,
    failures          integer     NOT NULL DEFAULT 0,
    window_started_at timestamptz NOT NULL,
    locked_until      timestamptz
);

-- The default roles of every tenant that exists already (new tenants get
-- them when created; internal/user.DefaultRoles is the one definition, a
-- test holds these lists equal to it).
INSERT INTO roles (tenant_id, name, abilities)
SELECT t.id, d.name, d.abilities
FROM tenants t CROSS JOIN (VALUES
    ('owner', ARRAY['api:view-any-contact', 'api:view-contact', 'api:create-contact', 'api:update-contact', 'api:delete-contact', 'api:restore-contact', 'api:view-any-receivable', 'api:view-receivable', 'api:create-receivable', 'api:update-receivable', 'api:delete-receivable', 'api:restore-receivable', 'api:view-any-payable', 'api:view-payable', 'api:create-payable', 'api:update-payable', 'api:delete-payable', 'api:restore-payable', 'api:view-any-transaction', 'api:view-transaction', 'api:view-token-transaction', 'api:create-transaction', 'api:update-transaction', 'api:delete-transaction', 'api:restore-transaction', 'api:resend-transaction', 'api:view-any-transaction-field-definition', 'api:view-transaction-field-definition', 'api:create-transaction-field-definition', 'api:update-transaction-field-definition', 'api:delete-transaction-field-definition', 'api:restore-transaction-field-definition', 'api:view-any-webhook', 'api:view-webhook', 'api:create-webhook', 'api:update-webhook', 'api:delete-webhook', 'api:view-any-campaign', 'api:view-campaign', 'api:create-campaign', 'api:update-campaign', 'api:delete-campaign', 'api:restore-campaign', 'api:assign-campaign', 'api:view-any-message', 'api:view-message', 'api:create-message', 'api:update-message', 'api:delete-message', 'api:restore-message', 'api:test-send-message', 'api:view-any-message-outbox', 'api:view-message-outbox', 'api:create-message-outbox', 'api:update-message-outbox', 'api:delete-message-outbox', 'api:restore-message-outbox', 'api:cancel-message-outbox', 'api:view-any-opt-in-code', 'api:view-opt-in-code', 'api:create-opt-in-code', 'api:update-opt-in-code', 'api:delete-opt-in-code', 'api:restore-opt-in-code', 'api:import-opt-in-code', 'api:view-any-suppression', 'api:create-suppression', 'api:delete-suppression', 'api:view-payment-rail', 'api:update-payment-rail', 'api:delete-payment-rail', 'api:view-any-role', 'api:view-role', 'api:create-role', 'api:update-role', 'api:delete-role', 'api:restore-role', 'api:view-any-user', 'api:view-user', 'api:create-user', 'api:update-user', 'api:delete-user', 'api:restore-user', 'api:view-any-subscription', 'api:view-subscription', 'api:create-subscription', 'api:update-subscription', 'api:delete-subscription', 'api:restore-subscription', 'api:view-any-support-ticket', 'api:view-support-ticket', 'api:create-support-ticket', 'api:update-support-ticket', 'api:delete-support-ticket', 'api:view-any-tenant-config-meta', 'api:view-tenant-config-meta', 'api:create-tenant-config-meta', 'api:update-tenant-config-meta', 'api:delete-tenant-config-meta', 'api:restore-tenant-config-meta', 'dashboard:manage-tokens', 'dashboard:manage-users']),
    ('developer', ARRAY['api:view-any-contact', 'api:view-contact', 'api:view-any-receivable', 'api:view-receivable', 'api:view-any-payable', 'api:view-payable', 'api:view-any-transaction', 'api:view-transaction', 'api:view-token-transaction', 'api:view-any-transaction-field-definition', 'api:view-transaction-field-definition', 'api:view-any-webhook', 'api:view-webhook', 'api:view-any-campaign', 'api:view-campaign', 'api:view-any-message', 'api:view-message', 'api:view-any-message-outbox', 'api:view-message-outbox', 'api:view-any-opt-in-code', 'api:view-opt-in-code', 'api:view-any-suppression', 'api:view-payment-rail', 'api:view-any-subscription', 'api:view-subscription', 'api:view-any-support-ticket', 'api:view-support-ticket', 'api:view-any-tenant-config-meta', 'api:view-tenant-config-meta', 'api:create-webhook', 'api:update-webhook', 'api:delete-webhook', 'dashboard:manage-tokens']),
    ('finance', ARRAY['api:view-any-receivable', 'api:view-receivable', 'api:create-receivable', 'api:update-receivable', 'api:delete-receivable', 'api:restore-receivable', 'api:view-any-payable', 'api:view-payable', 'api:create-payable', 'api:update-payable', 'api:delete-payable', 'api:restore-payable', 'api:view-any-transaction', 'api:view-transaction', 'api:view-token-transaction', 'api:create-transaction', 'api:update-transaction', 'api:delete-transaction', 'api:restore-transaction', 'api:resend-transaction', 'api:view-any-campaign', 'api:view-campaign', 'api:create-campaign', 'api:update-campaign', 'api:delete-campaign', 'api:restore-campaign', 'api:assign-campaign', 'api:view-any-contact', 'api:view-contact']),
    ('support', ARRAY['api:view-any-contact', 'api:view-contact', 'api:view-any-transaction', 'api:view-transaction', 'api:view-any-receivable', 'api:view-receivable', 'api:view-any-payable', 'api:view-payable', 'api:view-any-suppression', 'api:create-suppression', 'api:delete-suppression'])
) AS d (name, abilities)
ON CONFLICT DO NOTHING;

-- +goose Down
DROP TABLE sign_in_attempts;
DROP TABLE password_links;
DROP TABLE user_routes;
DROP TABLE users;
DROP TABLE roles;
