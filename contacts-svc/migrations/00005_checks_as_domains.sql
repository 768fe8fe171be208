-- +goose Up
-- The same rules as the CHECK constraints they replace, as domains. Postgres
-- reads a table's CHECK constraints from their stored text, plans them and
-- builds their evaluation again for every INSERT and UPDATE statement it
-- runs; a domain's constraints are planned once per connection and kept in
-- its type cache. The nine CHECKs a contact write met were 17 % of the
-- write's Postgres CPU (docs/benchmarks.md finding 6, fifth round). An
-- UPDATE now checks only the columns it assigns.
--
-- Without a table rewrite: a column changes to a domain that has no
-- constraint yet (text to a domain over text is binary coercible: no rewrite,
-- and the indexes stay), then the domain gets its CHECK as NOT VALID, which
-- every later write meets; the rows there are passed the table CHECK this
-- replaces. The names keep their table CHECKs: full_name is generated from
-- them, and Postgres changes the type of such a column only by rewriting
-- the table under its lock.
CREATE DOMAIN contact_custom_fields AS jsonb;
CREATE DOMAIN e164_number AS text;

ALTER TABLE contacts ALTER COLUMN custom_fields TYPE contact_custom_fields;
ALTER TABLE phones ALTER COLUMN e164 TYPE e164_number;

ALTER DOMAIN contact_custom_fields ADD CONSTRAINT contact_custom_fields_object
    CHECK (jsonb_typeof(VALUE) = 'object') NOT VALID;
ALTER DOMAIN e164_number ADD CONSTRAINT e164_number_format
    CHECK (VALUE ~ '^\+[1-9][0-9]{6,14}$') NOT VALID;

ALTER TABLE contacts DROP CONSTRAINT contacts_custom_fields_check;
ALTER TABLE phones DROP CONSTRAINT phones_e164_check;

-- +goose Down
ALTER TABLE phones ALTER COLUMN e164 TYPE text,
    ADD CONSTRAINT phones_e164_check CHECK (e164 ~ '^\+[1-9][0-9]{6,14}$') NOT VALID;
ALTER TABLE contacts ALTER COLUMN custom_fields TYPE jsonb,
    ADD CONSTRAINT contacts_custom_fields_check CHECK (jsonb_typeof(custom_fields) = 'object') NOT VALID;

DROP DOMAIN e164_number;
DROP DOMAIN contact_custom_fields;
