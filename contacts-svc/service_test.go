package contactssvc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	contacts "github.com/paylane/paylane/contacts-svc"
	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/contacts-svc/internal/testenv"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const tenantA = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"

var abilities = []string{"api:view-any-contact", "api:view-contact", "api:create-contact",
	"api:update-contact", "api:delete-contact", "api:restore-contact"}

// call sends a request to the running service and returns status and body.
func call(t *testing.T, method, url, token, body string, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func TestEventsReachTheBroker(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	svc := testenv.Start(t, brokers)
	tok := svc.Token(t, tenantA, abilities...)
	api := svc.BaseURL() + "/api/v1/contacts"

	status, body := call(t, "POST", api, tok, `{"first_name":"Ada","phone":"+14155550100"}`, map[string]string{"Idempotency-Key": "k1"})
	id := createdID(t, "create", status, body)
	steps := []struct{ method, url, body string }{
		{"POST", api, `{"first_name":"Ada","phone":"+14155550100"}`},  // replay of k1: no new event
		{"POST", api, `{"first_name":"Twin","phone":"+14155550100"}`}, // 422: no event
		{"PATCH", api + "/" + id, `{"last_name":"Lovelace"}`},
		{"DELETE", api + "/" + id, ``},
		{"POST", api + "/" + id + "/restore", `{}`},
	}
	for i, s := range steps {
		h := map[string]string{}
		if i == 0 {
			h["Idempotency-Key"] = "k1"
		}
		if status, body := call(t, s.method, s.url, tok, s.body, h); status >= 500 {
			t.Fatalf("%s %s = %d %s", s.method, s.url, status, body)
		}
	}

	// A last contact marks the end: every event before it is in the list,
	// so a replay or a refused create that published would show.
	got := eventsToMarker(t, svc, brokers)
	var types []string
	for _, e := range got {
		types = append(types, e.Type)
	}
	want := []string{events.TypeContactCreated, events.TypeContactUpdated, events.TypeContactDeleted, events.TypeContactUpdated,
		events.TypeContactRestored, events.TypeContactUpdated, events.TypeContactCreated}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Fatalf("event types (-want +got):\n%s", diff)
	}
	var first, deleted client.Contact
	if err := got[0].Decode(&first); err != nil {
		t.Fatal(err)
	}
	if err := got[2].Decode(&deleted); err != nil {
		t.Fatal(err)
	}
	if first.ID != id || first.Phone != "+14155550100" || first.PhoneID == "" || !first.Live() {
		t.Errorf("contact.created data = %+v", first)
	}
	if deleted.ID != id || deleted.Live() || deleted.LastName == nil || *deleted.LastName != "Lovelace" {
		t.Errorf("contact.deleted data = %+v", deleted)
	}
	if got[0].RequestID == "" || got[0].ID == "" || got[0].OccurredAt.IsZero() {
		t.Errorf("envelope lacks its ids: %+v", got[0])
	}
}

// eventsToMarker creates a marker contact and reads tenant A's events up to
// and including the marker's contact.created.
func eventsToMarker(t *testing.T, svc testenv.Service, brokers []string) []events.Envelope {
	t.Helper()
	marker := createMarker(t, svc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return testenv.ReadUntil(ctx, t, brokers, tenantA, func(e events.Envelope) bool {
		var c client.Contact
		return e.Decode(&c) == nil && c.ID == marker
	})
}

// createMarker creates one more contact and returns its id.
func createMarker(t *testing.T, svc testenv.Service) string {
	t.Helper()
	status, body := call(t, "POST", svc.BaseURL()+"/api/v1/contacts", svc.Token(t, tenantA, abilities...),
		`{"first_name":"Marker","phone":"+14155550199"}`, nil)
	return createdID(t, "marker", status, body)
}

// createdID fails the test unless a create answered 201, and returns the
// created contact's id.
func createdID(t *testing.T, what string, status int, body []byte) string {
	t.Helper()
	if status != 201 {
		t.Fatalf("%s = %d %s", what, status, body)
	}
	var c struct {
		Data client.Contact `json:"data"`
	}
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	return c.Data.ID
}

func TestInternalListener(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		resp, err := http.Get("http://" + svc.Addrs.Internal + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s = %d", path, resp.StatusCode)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	good := contacts.Config{Base: envconf.Base{HTTPAddr: ":8080", InternalAddr: ":9090", DatabaseURL: "postgres://x", DBMaxConns: 10,
		IdentityURL: "http://identity-svc:8080"}, DefaultRegion: "US"}
	tests := []struct {
		name    string
		change  func(*contacts.Config)
		wantErr string
	}{
		{"valid", func(*contacts.Config) {}, ""},
		{"no database", func(c *contacts.Config) { c.DatabaseURL = "" }, "DATABASE_URL"},
		{"no identity", func(c *contacts.Config) { c.IdentityURL = "" }, "IDENTITY_URL"},
		{"bad region", func(c *contacts.Config) { c.DefaultRegion = "usa" }, "DEFAULT_REGION"},
		{"no pool", func(c *contacts.Config) { c.DBMaxConns = 0 }, "DB_MAX_CONNS"},
		{"opt-in cache", func(c *contacts.Config) { c.OptInCacheTTL, c.OptInCacheSize = time.Second, 10 }, ""},
		{"negative opt-in cache TTL", func(c *contacts.Config) { c.OptInCacheTTL = -time.Second }, "OPTIN_CACHE_TTL"},
		{"opt-in cache TTL beyond a minute", func(c *contacts.Config) { c.OptInCacheTTL, c.OptInCacheSize = time.Hour, 10 }, "OPTIN_CACHE_TTL"},
		{"opt-in cache without room", func(c *contacts.Config) { c.OptInCacheTTL = time.Second }, "OPTIN_CACHE_SIZE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := good
			tt.change(&c)
			err := c.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate() = %v, want an error naming %q", err, tt.wantErr)
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("HTTP_ADDR", "")
	t.Setenv("DATABASE_URL", "postgres://app@db/contacts")
	t.Setenv("KAFKA_BROKERS", "k1:9092, k2:9092,")
	t.Setenv("IDENTITY_URL", "http://identity-svc:8080")
	t.Setenv("DEFAULT_REGION", "gb")
	t.Setenv("DB_MAX_CONNS", "20")
	cfg, err := contacts.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTPAddr != ":8080" || cfg.InternalAddr != ":9090" || cfg.DBMaxConns != 20 || cfg.DefaultRegion != "GB" ||
		!cmp.Equal(cfg.KafkaBrokers, []string{"k1:9092", "k2:9092"}) || cfg.Validate() != nil {
		t.Errorf("ConfigFromEnv = %+v", cfg)
	}
	if cfg.OptInCacheTTL != 10*time.Second || cfg.OptInCacheSize != 50_000 {
		t.Errorf("opt-in cache defaults: TTL %s, size %d; want 10s and 50000", cfg.OptInCacheTTL, cfg.OptInCacheSize)
	}
	t.Setenv("OPTIN_CACHE_TTL", "0")
	t.Setenv("OPTIN_CACHE_SIZE", "10")
	if cfg, err := contacts.ConfigFromEnv(); err != nil || cfg.OptInCacheTTL != 0 || cfg.OptInCacheSize != 10 || cfg.Validate() != nil {
		t.Errorf("OPTIN_CACHE_TTL=0: %+v, %v", cfg, err)
	}
	for name, value := range map[string]string{"DB_MAX_CONNS": "many", "OPTIN_CACHE_TTL": "soon", "OPTIN_CACHE_SIZE": "big"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			if _, err := contacts.ConfigFromEnv(); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%s: %v, want an error naming it", name, value, err)
			}
		})
	}
}

// TestBulkUpsertTakesAChunkAboveOneMegabyte sends the largest kind of
// chunk batch-svc sends: 500 items of a 5 MB batch, here 1.4 MB of them
// through long custom-field strings. The service's own body cap must take
// it (the gateway's public caps apply before any request reaches it).
func TestBulkUpsertTakesAChunkAboveOneMegabyte(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	defTok := svc.Token(t, tenantA, "api:create-contact-field-definition")
	status, body := call(t, "POST", svc.BaseURL()+"/api/v1/contact-field-definitions", defTok,
		`{"key":"notes","label":"Notes","type":"string"}`, nil)
	if status != 201 {
		t.Fatalf("definition = %d %s", status, body)
	}
	notes := strings.Repeat("n", 2800)
	items := make([]string, 500)
	for i := range items {
		items[i] = fmt.Sprintf(`{"external_id":"big-%d","phone":"+1415555%04d","custom_fields":{"notes":%q}}`, i, 1000+i, notes)
	}
	chunk := `{"batch_id":"01HZX3K5Q8V9W2Y4Z6A7B8C9BB","on_duplicate":"update","first_row_index":0,"items":[` +
		strings.Join(items, ",") + `]}`
	if len(chunk) <= 1<<20 {
		t.Fatalf("chunk is %d bytes, want above 1 MB", len(chunk))
	}
	status, body = call(t, "POST", svc.BaseURL()+"/internal/v1/contacts/bulk-upsert",
		svc.Token(t, tenantA, "api:create-contact"), chunk, nil)
	if status != 200 {
		t.Fatalf("bulk-upsert of %d bytes = %d %.300s", len(chunk), status, body)
	}
	var got struct {
		Data []struct {
			RowIndex int    `json:"row_index"`
			Action   string `json:"action"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Data) != 500 {
		t.Fatalf("bulk-upsert answered %d rows, want 500", len(got.Data))
	}
	for i, r := range got.Data {
		if r.RowIndex != i || r.Action != "created" {
			t.Errorf("row %d = %+v, want row_index %d created", i, r, i)
		}
	}
}

// A batch chunk asking for per-record events (a batch with
// suppress_webhooks false) publishes contact.created for every row it
// creates and contact.updated for every row it updates, as the single
// writes do; a chunk of a batch with the default (suppressed) publishes
// none: the batch's summary event, batch-svc's, stands for them.
func TestBulkUpsertEventsFollowEmitEvents(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	svc := testenv.Start(t, brokers)
	bulk := func(body string) []struct {
		ContactID string `json:"contact_id"`
		Action    string `json:"action"`
	} {
		t.Helper()
		status, raw := call(t, "POST", svc.BaseURL()+"/internal/v1/contacts/bulk-upsert",
			svc.Token(t, tenantA, "api:create-contact"), body, nil)
		if status != 200 {
			t.Fatalf("bulk-upsert = %d %s", status, raw)
		}
		var got struct {
			Data []struct {
				ContactID string `json:"contact_id"`
				Action    string `json:"action"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		return got.Data
	}
	silent := bulk(`{"batch_id":"01HZX3K5Q8V9W2Y4Z6A7B8C9B1","on_duplicate":"update","first_row_index":0,"items":[
		{"external_id":"e-1","phone":"+14155550101"},{"external_id":"e-2","phone":"+14155550102"}]}`)
	loud := bulk(`{"batch_id":"01HZX3K5Q8V9W2Y4Z6A7B8C9B2","on_duplicate":"update","emit_events":true,"first_row_index":0,"items":[
		{"external_id":"e-1","phone":"+14155550101","first_name":"Ada"},{"external_id":"e-3","phone":"+14155550103"},
		{"external_id":"e-4","phone":"+14155550104"}]}`)
	if len(silent) != 2 || len(loud) != 3 || loud[0].Action != "updated" || loud[1].Action != "created" || loud[2].Action != "created" {
		t.Fatalf("bulk-upsert rows: %+v then %+v", silent, loud)
	}

	got := eventsToMarker(t, svc, brokers)
	var seen []string
	for _, e := range got[:len(got)-1] {
		var c client.Contact
		if err := e.Decode(&c); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, e.Type+" "+c.ID)
	}
	want := []string{events.TypeContactUpdated + " " + loud[0].ContactID, events.TypeContactCreated + " " + loud[1].ContactID,
		events.TypeContactCreated + " " + loud[2].ContactID}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Fatalf("events before the marker (-want +got):\n%s", diff)
	}
}

// TestListTotalAboveTheCapIsAnEstimate: with a cap of 2 (the seam of the
// production cap, listtotal.DefaultCap), a list of 3 contacts reports an
// estimated total of at least 3 with meta.total_is_estimate, and still
// returns every contact; a list of 1 is exact and carries no flag.
func TestListTotalAboveTheCapIsAnEstimate(t *testing.T) {
	t.Parallel()
	svc := testenv.StartWith(t, nil, nil, svcrun.WithSeam(listtotal.Cap(2)))
	tok := svc.Token(t, tenantA, abilities...)
	api := svc.BaseURL() + "/api/v1/contacts"
	for i := range 3 {
		status, body := call(t, "POST", api, tok, fmt.Sprintf(`{"external_id":"crm-%d","phone":"+1415555010%d"}`, i, i), nil)
		createdID(t, "create", status, body)
	}
	for _, tc := range []struct {
		query     string
		items     int
		estimated bool
	}{
		{"", 3, true},
		{"?external_id=crm-1", 1, false},
	} {
		status, body := call(t, "GET", api+tc.query, tok, "", nil)
		var page struct {
			Data []json.RawMessage          `json:"data"`
			Meta map[string]json.RawMessage `json:"meta"`
		}
		if err := json.Unmarshal(body, &page); status != http.StatusOK || err != nil {
			t.Fatalf("GET %s = %d %s", tc.query, status, body)
		}
		var total int
		_ = json.Unmarshal(page.Meta["total"], &total)
		flag, has := page.Meta["total_is_estimate"]
		if len(page.Data) != tc.items || has != tc.estimated || (has && string(flag) != "true") ||
			(tc.estimated && total < tc.items) || (!tc.estimated && total != tc.items) {
			t.Errorf("GET %s: %d items, meta %s", tc.query, len(page.Data), body)
		}
	}
}
