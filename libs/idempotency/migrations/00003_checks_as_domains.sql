-- +goose Up
-- The same rules as the CHECK constraints they replace, as domains: Postgres
-- plans a table's CHECKs again for every statement that writes the table,
-- a domain's once per connection (docs/benchmarks.md finding 6, fifth
-- round). Without a rewrite: each column changes to a domain that has no
-- constraint yet (binary coercible: the table and its indexes stay), then
-- the domain gets its CHECK as NOT VALID, which every later write meets; the
-- rows there passed the table CHECK it replaces.
CREATE DOMAIN idempotency_key_text AS text;
CREATE DOMAIN sha256_digest AS bytea;
CREATE DOMAIN http_status AS integer;

ALTER TABLE idempotency_keys
    ALTER COLUMN key TYPE idempotency_key_text,
    ALTER COLUMN body_sha256 TYPE sha256_digest,
    ALTER COLUMN status TYPE http_status;

ALTER DOMAIN idempotency_key_text ADD CONSTRAINT idempotency_key_text_length
    CHECK (length(VALUE) BETWEEN 1 AND 128) NOT VALID;
ALTER DOMAIN sha256_digest ADD CONSTRAINT sha256_digest_length
    CHECK (length(VALUE) = 32) NOT VALID;
ALTER DOMAIN http_status ADD CONSTRAINT http_status_range
    CHECK (VALUE BETWEEN 100 AND 599) NOT VALID;

ALTER TABLE idempotency_keys
    DROP CONSTRAINT idempotency_keys_key_check,
    DROP CONSTRAINT idempotency_keys_body_sha256_check,
    DROP CONSTRAINT idempotency_keys_status_check;

-- +goose Down
ALTER TABLE idempotency_keys
    ALTER COLUMN key TYPE text,
    ALTER COLUMN body_sha256 TYPE bytea,
    ALTER COLUMN status TYPE integer,
    ADD CONSTRAINT idempotency_keys_key_check CHECK (length(key) BETWEEN 1 AND 128) NOT VALID,
    ADD CONSTRAINT idempotency_keys_body_sha256_check CHECK (length(body_sha256) = 32) NOT VALID,
    ADD CONSTRAINT idempotency_keys_status_check CHECK (status BETWEEN 100 AND 599) NOT VALID;

DROP DOMAIN http_status;
DROP DOMAIN sha256_digest;
DROP DOMAIN idempotency_key_text;
