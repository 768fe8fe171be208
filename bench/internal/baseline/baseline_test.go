package baseline

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/deploy/devstack"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const tenant = "01JBENCHTENANT0000000000AA"

// TestBaselineServesTheReadTheWriteAndTheCopy runs the baseline against a
// migrated contacts database and the bench database of a throwaway cluster.
// The subtests share the cluster's single bench database, so they run in order.
func TestBaselineServesTheReadTheWriteAndTheCopy(t *testing.T) {
	ctx := context.Background()
	pg := testkit.PG(t)
	appDSN := pg.Database(t, "contacts", migrations.Sets()...)
	contactsDB := databaseOf(t, appDSN)
	readDSN, benchDSN := pg.Cluster().SuperuserDSN(contactsDB), pg.Cluster().SuperuserDSN(Database)
	if err := Prepare(ctx, pg.Cluster().SuperuserDSN("postgres"), benchDSN); err != nil {
		t.Fatal(err)
	}
	contactID := seedContact(t, readDSN, "+14155550123")
	files, err := devstack.EnsureTLS(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(ctx, Options{
		ReadDSN: readDSN, WriteDSN: benchDSN, TenantID: tenant, MaxConns: 2, CertFile: files.Cert, KeyFile: files.Key,
		ShapeDSN: appDSN,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	client, err := load.NewClient(files.CACert, 2)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("GET answers the contact with its phone", func(t *testing.T) {
		status, body := call(t, client, http.MethodGet, srv.URL+"/contacts/"+contactID, "")
		var got struct {
			Data struct{ ID, Phone string } `json:"data"`
		}
		if err := json.Unmarshal(body, &got); err != nil || status != http.StatusOK {
			t.Fatalf("GET = %d %s, want 200 with a contact", status, body)
		}
		if diff := cmp.Diff(struct{ ID, Phone string }{contactID, "+14155550123"}, got.Data); diff != "" {
			t.Errorf("contact (-want +got):\n%s", diff)
		}
	})
	t.Run("GET of an unknown id is 404", func(t *testing.T) {
		if status, _ := call(t, client, http.MethodGet, srv.URL+"/contacts/01JUNKNOWN0000000000000000", ""); status != http.StatusNotFound {
			t.Errorf("GET unknown = %d, want 404", status)
		}
	})
	t.Run("POST inserts one row", func(t *testing.T) {
		status, body := call(t, client, http.MethodPost, srv.URL+"/contacts", `{"first_name":"Ada","phone":"+14155550124"}`)
		if status != http.StatusCreated {
			t.Fatalf("POST = %d %s, want 201", status, body)
		}
		if n := count(t, benchDSN, "contacts"); n != 1 {
			t.Errorf("bench.contacts holds %d rows, want 1", n)
		}
	})
	t.Run("POST without a phone is 422", func(t *testing.T) {
		if status, _ := call(t, client, http.MethodPost, srv.URL+"/contacts", `{"first_name":"Ada"}`); status != http.StatusUnprocessableEntity {
			t.Errorf("POST without phone = %d, want 422", status)
		}
	})
	t.Run("the what-if routes create a contact, its event and its stored response", func(t *testing.T) {
		for i, shape := range []string{"sequential", "pipelined"} {
			body := `{"first_name":"Ada","phone":"+1415555020` + strconv.Itoa(i) + `"}`
			if status, got := call(t, client, http.MethodPost, srv.URL+"/tx/"+shape, body); status != http.StatusCreated {
				t.Fatalf("POST /tx/%s = %d %s, want 201", shape, status, got)
			}
		}
		got := map[string]int{}
		for _, table := range []string{"contacts", "phones", "outbox", "idempotency_keys"} {
			got[table] = count(t, readDSN, table)
		}
		want := map[string]int{"contacts": 3, "phones": 3, "outbox": 2, "idempotency_keys": 2}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("rows after both what-if writes and the seed (-want +got):\n%s", diff)
		}
	})
	t.Run("a what-if write of a phone a live contact holds is 422", func(t *testing.T) {
		body := `{"first_name":"Ada","phone":"+14155550123"}`
		for _, shape := range []string{"sequential", "pipelined"} {
			if status, _ := call(t, client, http.MethodPost, srv.URL+"/tx/"+shape, body); status != http.StatusUnprocessableEntity {
				t.Errorf("POST /tx/%s with a held phone = %d, want 422", shape, status)
			}
		}
	})
	t.Run("Copy writes every row", func(t *testing.T) {
		took, err := Copy(ctx, benchDSN, tenant, 250, func(i int) string { return "+1415200" + strconv.Itoa(1000+i) })
		if err != nil {
			t.Fatal(err)
		}
		if n := count(t, benchDSN, "copy_contacts"); n != 250 || took <= 0 {
			t.Errorf("Copy took %v and left %d rows, want a positive time and 250 rows", took, n)
		}
	})
}

func databaseOf(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// seedContact inserts a phone and a live contact of tenant, as the
// superuser, and returns the contact's id.
func seedContact(t *testing.T, dsn, e164 string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const phoneID, contactID = "01JBENCHPHONE00000000000AA", "01JBENCHCONTACT0000000000A"
	for _, q := range []string{
		`INSERT INTO phones (id, tenant_id, e164) VALUES ('` + phoneID + `', '` + tenant + `', '` + e164 + `')`,
		`INSERT INTO contacts (id, tenant_id, first_name, phone_id, created_at, updated_at)
			VALUES ('` + contactID + `', '` + tenant + `', 'Ada', '` + phoneID + `', now(), now())`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return contactID
}

func call(t *testing.T, c *http.Client, method, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

func count(t *testing.T, dsn, table string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
