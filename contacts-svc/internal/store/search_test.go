package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/testkit"
)

// fillNamed commits contacts from to to (each with its phone record) of
// tenant from the app pool: 8 first names × 25 surnames, so that a full
// name repeats every 200 contacts and a first name every 8; one in a
// hundred is soft-deleted; three contacts share each created_at, so ties
// of score and time fall to the id.
func fillNamed(t *testing.T, pool *pgxpool.Pool, tenant string, from, to int) {
	t.Helper()
	testkit.Fill(t, pool, tenant, []string{
		`INSERT INTO phones (id, tenant_id, e164) SELECT $1 || '-p' || i, $1, '+1415' || (2000000 + i)
			FROM generate_series($2::int, $3::int) i`,
		`INSERT INTO contacts (id, tenant_id, first_name, last_name, phone_id, email, created_at, updated_at, deleted_at)
			SELECT $1 || '-c' || i, $1,
				(ARRAY['Ada', 'Alan', 'Maria', 'Marek', 'Mateo', 'Grace', 'Ines', 'Ivan'])[1 + i % 8],
				(ARRAY['Dun', 'Bar', 'Lind', 'Ros', 'Ab'])[1 + (i / 8) % 5] ||
					(ARRAY['berg', 'by', 'ley', 'son', 'ova'])[1 + (i / 40) % 5],
				$1 || '-p' || i, CASE WHEN i % 10 = 0 THEN 'p' || i || '@example.com' END,
				timestamptz '2026-01-01 00:00Z' + (i / 3) * interval '1 minute', now(),
				CASE WHEN i % 100 = 99 THEN now() END
			FROM generate_series($2::int, $3::int) i`,
	}, from, to)
}

// searchPatterns are names a search may be given: whole names that exist
// (ten live contacts each in 2,000), a typo, a first name, a surname, a
// part of one, and names like none (one without a trigram).
var searchPatterns = []string{"Maria Dunberg", "Ada Lovelace", "Maria Dunbreg", "Maria", "Grace Rosova",
	"Lindley", "Dun", "Ivan Abby", "Marek Barson", "Zebulon Quartz", "Mat", "?!"}

// TestSearchByNameFindsWhatComparingEveryContactFinds: a search by name
// alone answers, for every pattern and limit, the candidates, scores and
// order that comparing every live contact of the tenant (the search before
// migration 00008) answers: the same list, so resolve-contact classes the
// same. Limits below and above the number of strong candidates take both
// ways (strong candidates only, then all).
func TestSearchByNameFindsWhatComparingEveryContactFinds(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	fillNamed(t, pool, tenantA, 1, 2000)
	fillNamed(t, pool, tenantB, 1, 400)
	ctx := context.Background()
	for _, pattern := range searchPatterns {
		for _, limit := range []int{1, 3, 9, 10, 50} {
			t.Run(fmt.Sprintf("%s/%d", pattern, limit), func(t *testing.T) {
				t.Parallel()
				var want, got []contact.Candidate
				err := s.Read(ctx, tenantA, func(tx *store.Tx) error {
					var err error
					if want, err = comparingSearch(ctx, tx, pattern, limit); err != nil {
						return err
					}
					got, err = tx.SearchContacts(ctx, store.Search{Name: pattern, Limit: limit})
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(candidates(want), candidates(got)); diff != "" {
					t.Errorf("candidates (-comparing every contact +search):\n%s", diff)
				}
			})
		}
	}
}

// comparingSearch runs the statement that compares every live contact.
func comparingSearch(ctx context.Context, tx *store.Tx, name string, limit int) ([]contact.Candidate, error) {
	sql, args := store.ComparingSearch(tx.TenantID(), name, limit)
	return store.QueryCandidates(ctx, tx, sql, args...)
}

// candidates are a list's ids and scores, in order.
func candidates(list []contact.Candidate) []string {
	var out []string
	for _, c := range list {
		out = append(out, fmt.Sprintf("%s %.4f", c.Contact.ID, c.Score))
	}
	return out
}

// nameSearchFunctions are migration 00008's functions, which read contacts
// as their owner for the session's tenant.
var nameSearchFunctions = []string{"contact_name_candidates", "contact_name_candidates_strong", "contact_name_candidates_identical"}

// TestSearchByNameReadsTheTrigramIndex: the functions behind a search by
// name find the tenant's similar names through contacts_name_trgm_idx
// (tenant and trigrams in one index condition), its identical ones through
// contacts_name_trgm_set_idx, in the generic plan they get (migration
// 00008), and the statements the app role sends read only
// the candidates' rows, by primary key, in the generic plan pgx's
// statement cache switches to as in a custom plan. Under row-level security the trigram index was never used
// and every live contact of the tenant was compared: 17-28 s for a
// million (docs/benchmarks.md, "Data growth", finding 4).
func TestSearchByNameReadsTheTrigramIndex(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "contacts_store", migrations.Sets()...)
	pool, owner := pg.Pool(t, dsn), pg.Pool(t, pg.OwnerDSN(t, dsn))
	ctx := context.Background()
	fillNamed(t, pool, tenantA, 1, 20_000)
	fillNamed(t, pool, tenantB, 1, 1000)
	if _, err := owner.Exec(ctx, "VACUUM ANALYZE contacts, phones"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		for _, fn := range nameSearchFunctions {
			if mode != "force_generic_plan" {
				break // the functions' bodies are planned for any pattern
			}
			// The body, explained as the owner the function runs as.
			var body string
			if err := owner.QueryRow(ctx, "SELECT prosrc FROM pg_proc WHERE proname = $1", fn).Scan(&body); err != nil {
				t.Fatalf("%s: %v", fn, err)
			}
			found := 0
			testkit.ExplainPrepared(t, owner, tenantA, mode, "text", body, "Maria Dunberg").Walk(func(n testkit.PlanNode) {
				switch {
				case fn != "contact_name_candidates_identical" && n.Index == "contacts_name_trgm_idx" && n.NodeType == "Bitmap Index Scan" &&
					strings.Contains(n.IndexCond, "tenant_id =") && strings.Contains(n.IndexCond, "full_name %"):
					found++
				case fn == "contact_name_candidates_identical" && n.Index == "contacts_name_trgm_set_idx" &&
					strings.Contains(n.IndexCond, "tenant_id =") && strings.Contains(n.IndexCond, "hash_array(show_trgm(full_name))"):
					found++
				case n.Relation == "contacts" && n.NodeType == "Bitmap Heap Scan":
				case n.Relation != "" || n.Index != "":
					t.Errorf("%s, %s: %s read by %s %s (Index Cond %q)", fn, mode, n.Relation, n.NodeType, n.Index, n.IndexCond)
				}
			})
			if found == 0 {
				t.Errorf("%s, %s: the tenant's names not found through contacts_name_trgm_idx or contacts_name_trgm_set_idx", fn, mode)
			}
		}
		for _, sql := range store.NameSearchTiers() {
			scans := 0
			testkit.ExplainPrepared(t, pool, tenantA, mode, "", sql, tenantA, "Maria Dunberg", 10).Walk(func(n testkit.PlanNode) {
				switch {
				case n.NodeType == "Function Scan":
					scans++
				case n.Relation == "contacts" && n.Index == "contacts_pkey" && strings.HasPrefix(n.IndexCond, "(id = m.id)"):
				case n.Relation == "phones" && n.Index == "phones_pkey" && strings.HasSuffix(n.IndexCond, ".phone_id)"):
				case n.Relation != "":
					t.Errorf("%s: %s read by %s %s (Index Cond %q)", mode, n.Relation, n.NodeType, n.Index, n.IndexCond)
				}
			})
			if scans != 1 {
				t.Errorf("%s: %d function scans, want 1", mode, scans)
			}
		}
	}
}

// TestNarrowedSearchProbesItsIndex: a search narrowed by phone finds the
// phone record by phones_tenant_e164_key and its contact by the contact's
// phone; one narrowed by email reads contacts_email_idx; neither reads the
// tenant's other contacts, in the generic plan pgx's statement cache comes
// to as in a custom one. With "p.e164 = $3 unless $3 is empty" in the
// statement, a generic plan could use neither index.
func TestNarrowedSearchProbesItsIndex(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "contacts_store", migrations.Sets()...)
	pool, owner := pg.Pool(t, dsn), pg.Pool(t, pg.OwnerDSN(t, dsn))
	fillNamed(t, pool, tenantA, 1, 20_000)
	fillNamed(t, pool, tenantB, 1, 1000)
	if _, err := owner.Exec(context.Background(), "VACUUM ANALYZE contacts, phones"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		search store.Search
		index  string // the narrowing index
	}{
		{"phone", store.Search{Phone: "+14152000100", Limit: 10}, "phones_tenant_e164_key"},
		{"name and phone", store.Search{Name: "Maria", Phone: "+14152000100", Limit: 10}, "phones_tenant_e164_key"},
		{"email", store.Search{Email: "P100@example.com", Limit: 10}, "contacts_email_idx"},
	} {
		sql, args := store.NarrowedSearch(tenantA, tt.search)
		for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
			narrowed := 0
			testkit.ExplainPrepared(t, pool, tenantA, mode, "", sql, args...).Walk(func(n testkit.PlanNode) {
				switch {
				case n.Index == tt.index:
					narrowed++
				case n.NodeType == "Seq Scan" || n.Index == "contacts_list_idx" || n.Index == "contacts_name_trgm_idx":
					t.Errorf("%s, %s: %s read by %s %s", tt.name, mode, n.Relation, n.NodeType, n.Index)
				}
			})
			if narrowed != 1 {
				t.Errorf("%s, %s: %d reads of %s, want 1", tt.name, mode, narrowed, tt.index)
			}
		}
	}
}

// TestSearchByNameStaysInTheTenant: two tenants hold the same names; a
// search finds only its own tenant's contacts, and the functions behind it
// return nothing without a tenant in the session (none, or empty), only
// the named tenant's with one, and no role but the app role may call them.
func TestSearchByNameStaysInTheTenant(t *testing.T) {
	t.Parallel()
	pg := testkit.PG(t)
	dsn := pg.Database(t, "contacts_store", migrations.Sets()...)
	pool := pg.Pool(t, dsn)
	s := store.New(pool, nil)
	ctx := context.Background()
	for _, tenant := range []string{tenantA, tenantB} {
		fillNamed(t, pool, tenant, 1, 400)
	}
	for _, tenant := range []string{tenantA, tenantB} {
		for _, pattern := range searchPatterns {
			var list []contact.Candidate
			err := s.Read(ctx, tenant, func(tx *store.Tx) error {
				var err error
				list, err = tx.SearchContacts(ctx, store.Search{Name: pattern, Limit: 50})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if pattern == "Maria Dunberg" && len(list) == 0 {
				t.Errorf("%s: nothing found for %q", tenant, pattern)
			}
			for _, c := range list {
				if c.Contact.TenantID != tenant || !strings.HasPrefix(c.Contact.ID, tenant+"-") {
					t.Errorf("%s: %q found %s of tenant %s", tenant, pattern, c.Contact.ID, c.Contact.TenantID)
				}
			}
		}
	}
	for _, fn := range nameSearchFunctions {
		call := "SELECT id FROM " + fn + "('Maria Dunberg')"
		for _, tt := range []struct {
			name, setting string // setting "-": none
			wantPrefix    string // "": nothing
		}{
			{"no tenant", "-", ""},
			{"empty tenant", "", ""},
			{"tenant B", tenantB, tenantB + "-"},
		} {
			var got []string
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				if tt.setting != "-" {
					if _, err := tx.Exec(ctx, "SELECT set_config('app.tenant_id', $1, true)", tt.setting); err != nil {
						return err
					}
				}
				rows, err := tx.Query(ctx, call)
				if err != nil {
					return err
				}
				got, err = pgx.CollectRows(rows, pgx.RowTo[string])
				return err
			})
			if err != nil {
				t.Fatalf("%s, %s: %v", fn, tt.name, err)
			}
			if tt.wantPrefix == "" && len(got) != 0 {
				t.Errorf("%s, %s: returned %v, want nothing", fn, tt.name, got)
			}
			if tt.wantPrefix != "" && len(got) == 0 {
				t.Errorf("%s, %s: returned nothing", fn, tt.name)
			}
			for _, id := range got {
				if tt.wantPrefix != "" && !strings.HasPrefix(id, tt.wantPrefix) {
					t.Errorf("%s, %s: returned %s", fn, tt.name, id)
				}
			}
		}
		var public bool
		if err := pool.QueryRow(ctx, "SELECT has_function_privilege('public', $1, 'EXECUTE')", fn+"(text)").Scan(&public); err != nil || public {
			t.Errorf("%s: PUBLIC may execute it (%v, %v)", fn, public, err)
		}
	}
}
