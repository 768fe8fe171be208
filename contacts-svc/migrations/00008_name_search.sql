-- +goose NO TRANSACTION
-- +goose Up
-- Name search (the AI gateway's resolve-contact, the dashboard's search) read
-- every live contact of the tenant: pg_trgm's operators are not LEAKPROOF,
-- and Postgres does not use a condition that is not leakproof to read an
-- index below a row-level security policy, so contacts_full_name_trgm_idx
-- never served the app role (75 ms for a tenant of 10,000 contacts, 17-28 s
-- for a million; docs/benchmarks.md, "Data growth", finding 4).
--
-- The candidates now come from SECURITY DEFINER functions owned by the
-- migrating role, which reads contacts without the policy (NO FORCE below)
-- and names the tenant itself, from the session setting the policies read
-- (app.tenant_id): the trigram index is then an index condition. Without the
-- setting, or with an empty one, they return nothing, as the policy would.
-- The app role reads the rows themselves by id, under the policy.
--
-- Every statement is idempotent: a run that was interrupted (NO TRANSACTION,
-- for the CONCURRENTLY builds) is run again whole.

-- The trigram index holds the tenant as well (btree_gin, a trusted extension
-- like pg_trgm), so a search keeps to its tenant's entries instead of
-- rechecking the rows of other tenants' similar names.
CREATE EXTENSION IF NOT EXISTS btree_gin;
DROP INDEX CONCURRENTLY IF EXISTS contacts_name_trgm_idx;
CREATE INDEX CONCURRENTLY contacts_name_trgm_idx ON contacts USING gin (tenant_id, full_name gin_trgm_ops);
DROP INDEX CONCURRENTLY IF EXISTS contacts_full_name_trgm_idx;

-- Names whose trigrams are the same set (similarity 1: "Maria Dunberg",
-- "dunberg, maria") by the hash of that set: a B-tree probe, where the
-- trigram index pays for every name sharing the rarest trigram. The hash
-- leads: led by the tenant, this small index would be the planner's
-- cheapest way to read a whole tenant, and lists would read the tenant
-- through it instead of through contacts_list_idx.
DROP INDEX CONCURRENTLY IF EXISTS contacts_name_trgm_set_idx;
CREATE INDEX CONCURRENTLY contacts_name_trgm_set_idx ON contacts (hash_array(show_trgm(full_name)), tenant_id);

-- The owner (this role) is no longer subject to the policy on contacts, so
-- the functions below can read the index. The app role still is: it owns
-- nothing, and the owner could always turn the policy off anyway.
ALTER TABLE contacts NO FORCE ROW LEVEL SECURITY;

-- contact_name_candidates returns the candidates of a search by name: the
-- live contacts of the session's tenant whose full name is similar to
-- pattern as a whole (%, similarity at least 0.3) or contains a part
-- similar to it (<%, word similarity at least 0.6: "Ada" finds "Ada
-- Lovelace"), with their score (similarity of the whole names). The
-- thresholds are pg_trgm's defaults, set here so that no session setting
-- changes them. The body is planned once for any pattern (so Postgres 15-17
-- plan a SQL function's body; plan_cache_mode keeps it so where such
-- bodies go through the plan cache): then the index on tenant and trigrams
-- is the cheapest path. A plan for the pattern at hand may read the
-- tenant's contacts through a B-tree instead when the pattern looks
-- common, since the planner takes any tenant for 0.5 % of the table
-- (migration 00006): a million contacts for a tenant that large. A pattern
-- without a letter or digit has no trigram, matches nothing, and would make
-- the index read every entry of the tenant: it is answered at once.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION contact_name_candidates(pattern text)
RETURNS TABLE (id text, score real, created_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
SET pg_trgm.similarity_threshold = 0.3
SET pg_trgm.word_similarity_threshold = 0.6
SET plan_cache_mode = force_generic_plan
AS $$
SELECT c.id, similarity(c.full_name, $1), c.created_at
FROM contacts c
WHERE c.tenant_id = nullif(current_setting('app.tenant_id', true), '')
  AND c.deleted_at IS NULL
  AND (c.full_name % $1 OR $1 <% c.full_name)
  AND cardinality(show_trgm($1)) > 0
$$;
-- +goose StatementEnd

-- contact_name_candidates_strong returns the candidates scoring at least
-- 0.6, and contact_name_candidates_identical those scoring 1. When there
-- are at least as many as a search wants, they hold its best ones (every
-- other candidate scores less), and they are found reading far fewer
-- entries than for 0.3: with a million contacts, a first name alone is
-- shared by tens of thousands. Planned as the function above.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION contact_name_candidates_strong(pattern text)
RETURNS TABLE (id text, score real, created_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
SET pg_trgm.similarity_threshold = 0.6
SET plan_cache_mode = force_generic_plan
AS $$
SELECT c.id, similarity(c.full_name, $1), c.created_at
FROM contacts c
WHERE c.tenant_id = nullif(current_setting('app.tenant_id', true), '')
  AND c.deleted_at IS NULL
  AND c.full_name % $1
  AND cardinality(show_trgm($1)) > 0
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION contact_name_candidates_identical(pattern text)
RETURNS TABLE (id text, score real, created_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
SELECT c.id, similarity(c.full_name, $1), c.created_at
FROM contacts c
WHERE c.tenant_id = nullif(current_setting('app.tenant_id', true), '')
  AND hash_array(show_trgm(c.full_name)) = hash_array(show_trgm($1))
  AND similarity(c.full_name, $1) = 1
  AND c.deleted_at IS NULL
$$;
-- +goose StatementEnd

-- Only the app role may call them (pgdb.Migrate grants it EXECUTE): other
-- roles that may connect to the database have no business with contacts.
REVOKE EXECUTE ON FUNCTION contact_name_candidates(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION contact_name_candidates_strong(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION contact_name_candidates_identical(text) FROM PUBLIC;

-- +goose Down
DROP FUNCTION IF EXISTS contact_name_candidates_identical(text);
DROP FUNCTION IF EXISTS contact_name_candidates_strong(text);
DROP FUNCTION IF EXISTS contact_name_candidates(text);
ALTER TABLE contacts FORCE ROW LEVEL SECURITY;
CREATE INDEX CONCURRENTLY IF NOT EXISTS contacts_full_name_trgm_idx ON contacts USING gin (full_name gin_trgm_ops);
DROP INDEX CONCURRENTLY IF EXISTS contacts_name_trgm_set_idx;
DROP INDEX CONCURRENTLY IF EXISTS contacts_name_trgm_idx;
DROP EXTENSION IF EXISTS btree_gin;
