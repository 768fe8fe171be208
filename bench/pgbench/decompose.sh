#!/usr/bin/env bash
# Postgres CPU per write, statement shape by statement shape: the decomposition
# behind docs/benchmarks.md finding 6. It starts a throwaway cluster (socket
# only, fsync on), loads contacts-svc's, the outbox's and the idempotency
# migrations, and runs each *.sql beside this file with pgbench (8 clients,
# prepared statements, pipelined as the script says) as a role that owns no
# table, so row-level security applies as in the service. Each shape starts on
# the same data (2,000 phones, contacts, keys and outbox rows, analyzed).
#
# Figure: the CPU time of the backends (reaped into the postmaster's children
# time) divided by the transactions, which moves far less than throughput on a
# shared machine. Usage, from the repository root:
#   bash bench/pgbench/decompose.sh [transactions per client, default 2500] [shape.sql ...]
# ALTER_SQL, when set, runs after the migrations (as the owner): a what-if on
# the schema, e.g. ALTER_SQL='DROP INDEX contacts_full_name_trgm_idx'.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
per_client=${1:-2500}
shift || true
shapes=("$@")
if [ ${#shapes[@]} -eq 0 ]; then
	shapes=("$here"/[0-9]*.sql)
fi
clients=8

dir=$(mktemp -d /tmp/paylane-pgbench-XXXXXX)
chmod 755 "$dir"
as=()
if [ "$(id -u)" = 0 ]; then
	chown postgres "$dir"
	as=(runuser -u postgres --)
fi
port=5499
stop() {
	"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap stop EXIT

"${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
	-o "-p $port -k $dir -c listen_addresses='' -c max_connections=50" start >/dev/null
psql() { "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p $port -U postgres "$@"; }

psql -c "CREATE DATABASE contacts" -c "CREATE ROLE app LOGIN"
up() { sed -n '/+goose Up/,/+goose Down/p' "$1" | grep -v '+goose'; }
{
	for f in "$root"/contacts-svc/migrations/*.sql "$root"/libs/outbox/migrations/*.sql "$root"/libs/idempotency/migrations/*.sql; do
		up "$f"
	done
	cat <<'SQL'
-- The baseline's table: a contact with its phone inline and a primary key only.
CREATE TABLE bare_contacts (id text PRIMARY KEY, tenant_id text, external_id text, first_name text,
    last_name text, phone text, email text, custom_fields jsonb, created_at timestamptz, updated_at timestamptz);
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO app;
SQL
} | psql -d contacts >/dev/null
if [ -n "${ALTER_SQL:-}" ]; then
	psql -d contacts -c "$ALTER_SQL" >/dev/null
fi

pm=$(head -1 "$dir/data/postmaster.pid")
tick=$(getconf CLK_TCK)
children_cpu() { awk '{print $16 + $17}' "/proc/$pm/stat"; }

printf '%-34s %12s %10s\n' shape "µs CPU/tx" "tx/s"
for shape in "${shapes[@]}"; do
	psql -d contacts >/dev/null <<'SQL'
TRUNCATE bare_contacts, contacts, phones, outbox, idempotency_keys;
INSERT INTO phones SELECT 'sp' || g, 't1', '+1' || (20000000000000 + g) FROM generate_series(1, 2000) g;
INSERT INTO contacts (id, tenant_id, first_name, phone_id, created_at, updated_at)
    SELECT 'sc' || g, 't1', 'Seed', 'sp' || g, now(), now() FROM generate_series(1, 2000) g;
INSERT INTO idempotency_keys (tenant_id, key, method, path, body_sha256, request_id, status, body)
    SELECT 't1', 'sk' || g, 'POST', '/api/v1/contacts', decode(md5('a') || md5('b'), 'hex'), 'r', 201, 'b'
    FROM generate_series(1, 2000) g;
INSERT INTO outbox (event_id, topic, key, tenant_id, payload)
    SELECT 'se' || g, 'paylane.contacts.v1', 't1', 't1', '{}' FROM generate_series(1, 2000) g;
ANALYZE;
CHECKPOINT;
SQL
	before=$(children_cpu)
	out=$("$bin/pgbench" -h "$dir" -p $port -U app -d contacts -n -M prepared --random-seed=rand \
		-c $clients -j 2 -t "$per_client" -f "$shape" 2>&1) || { echo "$out" >&2; exit 1; }
	sleep 0.3 # the backends exit and are reaped
	after=$(children_cpu)
	tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
	txs=$((clients * per_client))
	printf '%-34s %12d %10.0f\n' "$(basename "$shape" .sql)" $(((after - before) * 1000000 / tick / txs)) "$tps"
done
