package clientcontract_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paylane/paylane/batch-svc/client"
	"github.com/paylane/paylane/batch-svc/client/clienttest"
	"github.com/paylane/paylane/batch-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const (
	tenantA = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"
	tenantB = "01HZX3K5Q8V9W2Y4Z6A7B8C9DB"
)

// backend is batch-svc or its fake (client/clienttest): the client's
// cases run against both, so the fake other services test with answers
// as the service does. seed makes tenantA's contacts batch of 30 rows
// whose rows 3, 13 and 23 were refused (phone) and returns its id.
type backend struct {
	url   string
	token func(tenant string) string
	seed  func(t *testing.T) string
}

// TestClientAgainstTheServiceAndItsFake runs the client's reads: the
// header, the list with its filters and the row errors page by page.
func TestClientAgainstTheServiceAndItsFake(t *testing.T) {
	t.Parallel()
	t.Run("service", func(t *testing.T) {
		t.Parallel()
		svc := testenv.Start(t, nil)
		limits := authz.Limits{BatchesInFlight: 10}
		tok := func(tenant string) string {
			return svc.Token(t, tenant, limits, "api:create-contact", "api:view-any-contact")
		}
		be := backend{svc.BaseURL(), tok, func(t *testing.T) string { return submitContacts(t, svc, tok(tenantA)) }}
		id := clientCases(t, be)
		gateCases(t, svc, id)
	})
	t.Run("fake", func(t *testing.T) {
		t.Parallel()
		fake := clienttest.New(t)
		clientCases(t, backend{fake.URL, testkit.TenantToken, func(*testing.T) string { return seedFake(fake) }})
	})
}

// submitContacts submits the seed batch to batch-svc and waits for its end.
func submitContacts(t *testing.T, svc testenv.Service, tok string) string {
	items := make([]string, 0, 30)
	for i := range 30 {
		if i%10 == 3 {
			items = append(items, fmt.Sprintf(`{"first_name":"Bad %d","phone":"nope"}`, i))
			continue
		}
		items = append(items, fmt.Sprintf(`{"first_name":"Row %d","phone":"+1415555%04d"}`, i, 100+i))
	}
	var env struct{ Data testenv.Header }
	r := svc.Do(t, http.MethodPost, "/api/v1/contacts/batch", tok, `{"items":[`+strings.Join(items, ",")+`]}`)
	if r.Status != http.StatusAccepted {
		t.Fatalf("submit = %d %s", r.Status, r.Body)
	}
	r.JSON(t, &env)
	svc.WaitFor(t, tok, env.Data.ID, testenv.Header.Final)
	return env.Data.ID
}

// seedFake stores the seed batch in the fake, as batch-svc ends it.
func seedFake(fake *clienttest.Batches) string {
	at := time.Now().UTC().Truncate(time.Millisecond)
	id := ids.New()
	self := fake.URL + "/api/v1/batches/" + id
	var rows []client.RowError
	for _, i := range []int{3, 13, 23} {
		rows = append(rows, client.RowError{RowIndex: i, Field: "phone", Message: "The phone field must be a valid phone number."})
	}
	fake.Add(tenantA, client.Batch{ID: id, Type: client.TypeContacts, Status: client.StatusPartialFailure, TotalItems: 30,
		ProcessedItems: 30, SucceededItems: 27, FailedItems: 3, Options: client.Options{OnDuplicate: "update", SuppressWebhooks: true,
			SuppressActivityLog: true}, StartedAt: &at, CompletedAt: &at, CreatedAt: at, UpdatedAt: at,
		Links: client.Links{Self: self, Errors: self + "/errors"}}, rows...)
	return id
}

func clientCases(t *testing.T, be backend) string {
	id := be.seed(t)
	tok := be.token(tenantA)
	c := client.New(be.url, nil)
	ctx := context.Background()

	b, err := c.Batch(ctx, tok, id)
	if err != nil || b.ID != id || b.Type != client.TypeContacts || b.Status != client.StatusPartialFailure ||
		b.TotalItems != 30 || b.SucceededItems != 27 || b.FailedItems != 3 || b.CompletedAt == nil || b.CreatedAt.IsZero() ||
		!b.Final() || b.Options.OnDuplicate != "update" || !strings.HasSuffix(b.Links.Errors, "/api/v1/batches/"+id+"/errors") {
		t.Fatalf("Batch = %+v, %v", b, err)
	}

	list, err := c.Batches(ctx, tok, client.Filters{})
	if err != nil || len(list.Data) != 1 || list.Data[0].ID != id || list.Meta.Total != 1 || list.Meta.PerPage != 15 {
		t.Errorf("Batches = %+v, %v", list, err)
	}
	list, err = c.Batches(ctx, tok, client.Filters{Type: client.TypeContacts, Status: client.StatusPartialFailure, PerPage: 5})
	if err != nil || len(list.Data) != 1 || list.Meta.PerPage != 5 {
		t.Errorf("Batches by type and status = %+v, %v", list, err)
	}
	list, err = c.Batches(ctx, tok, client.Filters{Status: client.StatusQueued})
	if err != nil || len(list.Data) != 0 || list.Data == nil || list.Meta.Total != 0 {
		t.Errorf("Batches of queued = %+v, %v", list, err)
	}
	for _, f := range []struct {
		field   string
		filters client.Filters
	}{{"status", client.Filters{Status: "done"}}, {"type", client.Filters{Type: "invoices"}}} {
		_, err = c.Batches(ctx, tok, f.filters)
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnprocessableEntity || len(apiErr.Fields()[f.field]) == 0 {
			t.Errorf("Batches of an unknown %s: err = %v", f.field, err)
		}
	}

	first, err := c.Errors(ctx, tok, id, client.Page{PerPage: 2})
	if err != nil || len(first.Data) != 2 || first.Meta.Total != 3 || first.Meta.LastPage != 2 {
		t.Fatalf("Errors page 1 = %+v, %v", first, err)
	}
	if e := first.Data[0]; e.RowIndex != 3 || e.Field != "phone" || e.Message == "" || first.Data[1].RowIndex != 13 {
		t.Errorf("Errors page 1 rows = %+v", first.Data)
	}
	second, err := c.Errors(ctx, tok, id, client.Page{Page: 2, PerPage: 2})
	if err != nil || len(second.Data) != 1 || second.Data[0].RowIndex != 23 {
		t.Errorf("Errors page 2 = %+v, %v", second, err)
	}
	all, err := c.Errors(ctx, tok, id, client.Page{})
	if err != nil || len(all.Data) != 3 || all.Meta.PerPage != 25 {
		t.Errorf("Errors = %+v, %v", all, err)
	}

	for _, tt := range []struct{ name, token, id string }{
		{"unknown", tok, "01HZX3K5Q8V9W2Y4Z6A7B8C9DE"},
		{"not a ULID", tok, "not-a-ulid"},
		{"another tenant's", be.token(tenantB), id},
	} {
		if _, err := c.Batch(ctx, tt.token, tt.id); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("Batch of %s: err = %v, want ErrNotFound", tt.name, err)
		}
		if _, err := c.Errors(ctx, tt.token, tt.id, client.Page{}); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("Errors of %s: err = %v, want ErrNotFound", tt.name, err)
		}
	}
	if _, err := c.Batch(ctx, "not-a-token", id); client.StatusOf(err) != http.StatusUnauthorized {
		t.Errorf("bad token: err = %v, want 401", err)
	}
	return id
}

// gateCases checks the service's gates the client passes on: a batch is
// read with the view-any ability of its type (the fake leaves gates to
// FailWhen).
func gateCases(t *testing.T, svc testenv.Service, id string) {
	c := client.New(svc.BaseURL(), nil)
	ctx := context.Background()
	receivablesOnly := svc.Token(t, tenantA, authz.Limits{BatchesInFlight: 10}, "api:view-any-receivable")
	if _, err := c.Batches(ctx, receivablesOnly, client.Filters{Type: client.TypeContacts}); client.StatusOf(err) != http.StatusForbidden {
		t.Errorf("Batches of a type the token may not read: err = %v, want 403", err)
	}
	if list, err := c.Batches(ctx, receivablesOnly, client.Filters{}); err != nil || len(list.Data) != 0 {
		t.Errorf("Batches for a receivables reader = %+v, %v; want none", list, err)
	}
	if _, err := c.Batch(ctx, receivablesOnly, id); client.StatusOf(err) != http.StatusForbidden {
		t.Errorf("Batch of a type the token may not read: err = %v, want 403", err)
	}
	if _, err := c.Errors(ctx, receivablesOnly, id, client.Page{}); client.StatusOf(err) != http.StatusForbidden {
		t.Errorf("Errors of a type the token may not read: err = %v, want 403", err)
	}
}

func TestFakeAnswersChosenFailures(t *testing.T) {
	t.Parallel()
	fake := clienttest.New(t)
	id := seedFake(fake)
	fake.FailTenant(tenantB, http.StatusForbidden)
	c := client.New(fake.URL, nil)
	if _, err := c.Batch(context.Background(), testkit.TenantToken(tenantB), id); client.StatusOf(err) != http.StatusForbidden {
		t.Errorf("chosen 403: err = %v", err)
	}
	if calls := fake.Calls(); len(calls) != 1 || calls[0].Tenant != tenantB || calls[0].Path != "/api/v1/batches/"+id {
		t.Errorf("calls = %+v", calls)
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
	tok := testkit.TenantToken(tenantA)
	for range 5 {
		if _, err := c.Batches(context.Background(), tok, client.Filters{}); client.StatusOf(err) != 503 {
			t.Fatalf("err = %v, want the 503", err)
		}
	}
	if _, err := c.Batch(context.Background(), tok, "01HZX3K5Q8V9W2Y4Z6A7B8C9DE"); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("sixth call err = %v, want ErrUnavailable", err)
	}
	if n := hits.Load(); n != 5 {
		t.Errorf("server hit %d times, want 5 (the open breaker must not call)", n)
	}
}
