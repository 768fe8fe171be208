package clientcontract_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/contacts-svc/client/clienttest"
	"github.com/paylane/paylane/contacts-svc/internal/testenv"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	tenantA = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"
	tenantB = "01HZX3K5Q8V9W2Y4Z6A7B8C9DB"
)

// backend is contacts-svc or its fake (client/clienttest): the client's
// cases run against both, so the fake other services test with answers
// as the service does.
type backend struct {
	url   string
	token func(tenant string) string
}

func TestClientAgainstTheServiceAndItsFake(t *testing.T) {
	t.Parallel()
	t.Run("service", func(t *testing.T) {
		t.Parallel()
		svc := testenv.Start(t, nil)
		// The token a transactions-svc forwards: the tenant's, no contact abilities.
		clientCases(t, backend{svc.BaseURL(), func(tenant string) string { return svc.Token(t, tenant, "api:create-receivable") }})
	})
	t.Run("fake", func(t *testing.T) {
		t.Parallel()
		clientCases(t, backend{clienttest.New(t).URL, testkit.TenantToken})
	})
}

func clientCases(t *testing.T, b backend) {
	c := client.New(b.url, nil)
	ctx := context.Background()
	tok := b.token(tenantA)

	ada, created, err := c.FindOrCreate(ctx, tok, client.ContactInput{ExternalID: "crm-1", FirstName: "Ada", LastName: "Lovelace", Phone: "(415) 555-0100"}, "")
	if err != nil || !created || ada.Phone != "+14155550100" || !ada.Live() {
		t.Fatalf("FindOrCreate = %+v, %v, %v", ada, created, err)
	}
	again, created, err := c.FindOrCreate(ctx, tok, client.ContactInput{ExternalID: "crm-1", Phone: "+14155550101"}, "")
	if err != nil || created || again.ID != ada.ID {
		t.Errorf("FindOrCreate of a known external id = %+v, %v, %v", again, created, err)
	}
	_, _, err = c.FindOrCreate(ctx, tok, client.ContactInput{Phone: "+14155550100"}, "")
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 422 || len(apiErr.Fields()["phone"]) == 0 {
		t.Errorf("FindOrCreate with a taken phone: err = %v", err)
	}

	got, err := c.Contact(ctx, tok, ada.ID)
	if err != nil || got.ID != ada.ID || !got.CreatedAt.Equal(ada.CreatedAt) {
		t.Errorf("Contact = %+v, %v", got, err)
	}
	for _, tt := range []struct{ token, id string }{
		{tok, "01HZX3K5Q8V9W2Y4Z6A7B8C9DE"},
		{tok, "not-a-ulid"},
		{b.token(tenantB), ada.ID},
	} {
		if _, err := c.Contact(ctx, tt.token, tt.id); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("Contact(%s) err = %v, want ErrNotFound", tt.id, err)
		}
	}
	byIDCases(t, c, b, ada)

	phone, err := c.Phone(ctx, tok, ada.PhoneID)
	if err != nil || phone.ID != ada.PhoneID || phone.Phone != ada.Phone {
		t.Errorf("Phone = %+v, %v", phone, err)
	}
	if _, err := c.Phone(ctx, b.token(tenantB), ada.PhoneID); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("Phone of another tenant: err = %v, want ErrNotFound", err)
	}

	cands, err := c.Search(ctx, tok, client.SearchQuery{Name: "Ada Lovelace"})
	if err != nil || len(cands) != 1 || cands[0].ContactID != ada.ID || cands[0].PhoneLast4 != "0100" || cands[0].Score <= 0 {
		t.Errorf("Search = %+v, %v", cands, err)
	}

	req := client.BulkUpsertRequest{BatchID: "B1", Items: []client.ContactInput{
		{ExternalID: "crm-1", FirstName: "Augusta", Phone: "+14155550100"},
		{FirstName: "Grace", Phone: "+14155550102"},
		{Phone: "nope"},
	}}
	rows, err := c.BulkUpsert(ctx, tok, req)
	if err != nil || len(rows) != 3 {
		t.Fatalf("BulkUpsert = %+v, %v", rows, err)
	}
	actions := []string{rows[0].Action, rows[1].Action, rows[2].Action}
	if diff := cmp.Diff([]string{client.ActionUpdated, client.ActionCreated, client.ActionFailed}, actions); diff != "" ||
		rows[0].ContactID != ada.ID || len(rows[2].Errors["phone"]) == 0 {
		t.Errorf("rows = %+v (-want +got actions):\n%s", rows, diff)
	}
	resumed, err := c.BulkUpsert(ctx, tok, req)
	if err != nil || !cmp.Equal(rows, resumed) {
		t.Errorf("resumed chunk = %+v, %v; want %+v", resumed, err, rows)
	}

	raw, err := c.BulkUpsertRaw(ctx, tok, client.BulkUpsertRawRequest{BatchID: "B2", FirstRowIndex: 500, Items: []json.RawMessage{
		json.RawMessage(`{"first_name":"Joan","phone":"+14155550103"}`),
		json.RawMessage(`{"phone":"+14155550104","nickname":"x"}`),
	}})
	if err != nil || len(raw) != 2 || raw[0].Action != client.ActionCreated || raw[0].RowIndex != 500 ||
		raw[1].Action != client.ActionFailed || len(raw[1].Errors["nickname"]) == 0 {
		t.Errorf("BulkUpsertRaw = %+v, %v", raw, err)
	}

	if _, err := c.Contact(ctx, "not-a-token", ada.ID); client.StatusOf(err) != http.StatusUnauthorized {
		t.Errorf("bad token: err = %v", err)
	}
}

func TestBreakerOpensAfterRepeatedFailures(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	c := client.New(down.URL, down.Client())
	for range 5 {
		if _, err := c.Contact(context.Background(), "tok", "01HZX3K5Q8V9W2Y4Z6A7B8C9DE"); client.StatusOf(err) != 503 {
			t.Fatalf("err = %v, want the 503", err)
		}
	}
	_, err := c.Contact(context.Background(), "tok", "01HZX3K5Q8V9W2Y4Z6A7B8C9DE")
	if !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("sixth call err = %v, want ErrUnavailable", err)
	}
	if n := hits.Load(); n != 5 {
		t.Errorf("server hit %d times, want 5 (the open breaker must not call)", n)
	}
}

func TestClientErrorsDoNotTripTheBreaker(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":"resource_not_found","message":"gone","request_id":"R"}}`))
	}))
	t.Cleanup(srv.Close)
	c := client.New(srv.URL, srv.Client())
	for range 10 {
		_, err := c.Contact(context.Background(), "tok", "01HZX3K5Q8V9W2Y4Z6A7B8C9DE")
		var apiErr *client.Error
		if !errors.Is(err, client.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.RequestID != "R" {
			t.Fatalf("err = %v, want ErrNotFound with the request id", err)
		}
	}
	if n := hits.Load(); n != 10 {
		t.Errorf("server hit %d times, want 10", n)
	}
}

func TestBreakerIsPerTenant(t *testing.T) {
	t.Parallel()
	fake := clienttest.New(t)
	fake.FailTenant("A", http.StatusInternalServerError)
	b := fake.Add("B", "cust-1", "Ada", "+14155550123")
	c := client.New(fake.URL, nil)
	ctx := context.Background()
	for range 5 {
		if _, err := c.Contact(ctx, testkit.TenantToken("A"), b.ID); client.StatusOf(err) != 500 {
			t.Fatalf("A: err = %v, want the 500", err)
		}
	}
	if _, err := c.Contact(ctx, testkit.TenantToken("A"), b.ID); !errors.Is(err, client.ErrUnavailable) {
		t.Fatalf("A's sixth call = %v, want ErrUnavailable", err)
	}
	for range 20 {
		if got, err := c.Contact(ctx, testkit.TenantToken("B"), b.ID); err != nil || got.ID != b.ID {
			t.Fatalf("B while A's breaker is open = %v, %v; want its contact", got, err)
		}
	}
}

func TestEveryFourXXPassesThroughAndNeverOpens(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 404, 409, 422, 429} {
		fake := clienttest.New(t)
		fake.FailTenant("A", status)
		c := client.New(fake.URL, nil)
		for range 10 {
			_, _, err := c.FindOrCreate(context.Background(), testkit.TenantToken("A"), client.ContactInput{ExternalID: "x\u0000"}, "")
			if client.StatusOf(err) != status || errors.Is(err, client.ErrUnavailable) {
				t.Fatalf("answer %d came back as %v", status, err)
			}
		}
		if n := fake.CallsOf("A"); n != 10 {
			t.Errorf("%d: contacts-svc called %d times, want 10 (no breaker opened)", status, n)
		}
	}
}

// byIDCases: the read by ids returns the tenant's contacts among the ids,
// each once, leaves out unknown ids and other tenants' contacts, and
// refuses an empty list, a malformed id or more than client.MaxByID.
func byIDCases(t *testing.T, c *client.Client, b backend, ada *client.Contact) {
	ctx := context.Background()
	tok := b.token(tenantA)
	bob, _, err := c.FindOrCreate(ctx, tok, client.ContactInput{ExternalID: "crm-by-id", FirstName: "Bob", Phone: "+14155550177"}, "")
	if err != nil {
		t.Fatalf("FindOrCreate: %v", err)
	}
	got, err := c.ByID(ctx, tok, []string{ada.ID, "01HZX3K5Q8V9W2Y4Z6A7B8C9DE", bob.ID, ada.ID})
	names := map[string]string{}
	for _, ct := range got {
		names[ct.ID] = *ct.FirstName
	}
	if err != nil || len(got) != 2 || names[ada.ID] != "Ada" || names[bob.ID] != "Bob" {
		t.Errorf("ByID = %+v, %v; want Ada and Bob once each", got, err)
	}
	if got, err := c.ByID(ctx, b.token(tenantB), []string{ada.ID}); err != nil || len(got) != 0 {
		t.Errorf("ByID of another tenant's contact = %+v, %v; want none", got, err)
	}
	tooMany := make([]string, client.MaxByID+1)
	for i := range tooMany {
		tooMany[i] = ada.ID
	}
	for name, list := range map[string][]string{"empty": nil, "malformed": {ada.ID, "not-a-ulid"}, "nul": {"01HZX3K5Q8V9W2Y4Z6A7B8C9D\x00"}, "too many": tooMany} {
		var apiErr *client.Error
		if _, err := c.ByID(ctx, tok, list); !errors.As(err, &apiErr) || apiErr.Status != 422 || len(apiErr.Fields()["ids"]) == 0 {
			t.Errorf("ByID(%s) err = %v, want a 422 naming ids", name, err)
		}
	}
}
