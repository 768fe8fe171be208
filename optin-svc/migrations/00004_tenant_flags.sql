-- +goose Up

-- The tenant's opt_in flag: its landing pages answer only while it is on.
ALTER TABLE tenants ADD COLUMN opt_in boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE tenants DROP COLUMN opt_in;
