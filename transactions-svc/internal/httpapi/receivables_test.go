package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestCreateReceivableSendsItsLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const requestID = "01JD3X0Q4Z8W2E5R7T9Y1V3REQ"
	r := f.do(t, http.MethodPost, "/api/v1/receivables",
		`{"contact_id":"`+f.contact+`","amount":1250,"currency":"eur","description":"Invoice 42","external_id":"INV-42"}`,
		"X-Request-Id: "+requestID)
	expect(t, r, http.StatusCreated, "")
	var created one
	r.JSON(t, &created)
	it := created.Data
	if it.Status != "pending" || it.Currency != "EUR" || it.PaymentLinkURL == nil || it.TransactionID == it.ID {
		t.Fatalf("created %+v", it)
	}
	if !strings.HasPrefix(*it.PaymentLinkURL, testenv.PublicBaseURL+"/l/r/"+it.ID+"?expires=") {
		t.Errorf("payment_link_url %s", *it.PaymentLinkURL)
	}
	evs := f.env.Events(t, f.tenant)
	if diff := cmp.Diff([]string{"receivable.created", "notification.requested"}, testenv.Types(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if evs[0].RequestID != requestID || evs[1].RequestID != requestID {
		t.Errorf("events carry request ids %q, %q; want %s", evs[0].RequestID, evs[1].RequestID, requestID)
	}
	sent := f.env.Notifications(t, f.tenant)
	if n := sent[0]; n.To != "+14155550123" || n.Event.Kind != events.KindPaymentLink || !strings.Contains(n.Body, *it.PaymentLinkURL) ||
		!strings.Contains(n.Body, "€12.50") || n.Event.TransactionID != it.TransactionID {
		t.Errorf("notification %+v", n)
	}
	got := f.do(t, http.MethodGet, "/api/v1/receivables/"+it.ID, "")
	expect(t, got, http.StatusOK, "")
	var o one
	got.JSON(t, &o)
	if o.Data.ID != it.ID || o.Data.PaymentLinkURL == nil || *o.Data.PaymentLinkURL != *it.PaymentLinkURL {
		t.Errorf("show %+v", o.Data)
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := f.env.Contact(t, f.tenant, "gone", "Bob", "+14155550199")
	f.env.DeleteContact(t, f.tenant, other.ID)
	foreign := f.env.Contact(t, "01J0OTHERTENANT00000000000", "x", "Eve", "+14155550142")
	c := `"contact_id":"` + f.contact + `"`
	tests := []struct {
		name, body, field string
	}{
		{"amount zero", `{` + c + `,"amount":0}`, "amount"},
		{"amount negative", `{` + c + `,"amount":-100}`, "amount"},
		{"amount fractional", `{` + c + `,"amount":10.5}`, "amount"},
		{"amount above cap", `{` + c + `,"amount":100000000}`, "amount"},
		{"amount missing", `{` + c + `}`, "amount"},
		{"unknown currency", `{` + c + `,"amount":100,"currency":"XYZ"}`, "currency"},
		{"send_at in the past", `{` + c + `,"amount":100,"send_at":"2026-11-22T00:00:00Z"}`, "send_at"},
		{"misspelt send_at", `{` + c + `,"amount":100,"sendAt":"2027-01-01T00:00:00Z"}`, "sendAt"},
		{"link_ttl_hours zero", `{` + c + `,"amount":100,"link_ttl_hours":0}`, "link_ttl_hours"},
		{"link_ttl_hours above", `{` + c + `,"amount":100,"link_ttl_hours":721}`, "link_ttl_hours"},
		{"unknown contact", `{"contact_id":"01JD3X0Q4Z8W2E5R7T9Y1V3K5M","amount":100}`, "contact_id"},
		{"contact not a ulid", `{"contact_id":"nope","amount":100}`, "contact_id"},
		{"deleted contact", `{"contact_id":"` + other.ID + `","amount":100}`, "contact_id"},
		{"contact of another tenant", `{"contact_id":"` + foreign.ID + `","amount":100}`, "contact_id"},
		{"unknown external id", `{"contact":{"external_id":"nobody"},"amount":100}`, "contact.external_id"},
		{"no contact", `{"amount":100}`, "contact_id"},
		{"custom field undefined", `{` + c + `,"amount":100,"custom_fields":{"tier":"gold"}}`, "custom_fields.tier"},
	}
	for _, path := range []string{"receivables", "payables"} {
		for _, tt := range tests {
			t.Run(path+"/"+tt.name, func(t *testing.T) {
				r := f.do(t, http.MethodPost, "/api/v1/"+path, tt.body)
				expect(t, r, http.StatusUnprocessableEntity, "validation_failed")
				var env struct {
					Error struct {
						Details map[string][]string `json:"details"`
					} `json:"error"`
				}
				r.JSON(t, &env)
				if len(env.Error.Details[tt.field]) == 0 {
					t.Fatalf("details %v do not name %s", env.Error.Details, tt.field)
				}
			})
		}
	}
	if evs := f.env.Events(t, f.tenant); len(evs) != 0 {
		t.Errorf("refused creates emitted %v", testenv.Types(evs))
	}
	expect(t, f.do(t, http.MethodPost, "/api/v1/receivables", `{"amount":`), http.StatusBadRequest, "bad_request")
	expect(t, f.do(t, http.MethodPost, "/api/v1/receivables", `[]`), http.StatusUnprocessableEntity, "validation_failed")
}

func TestCreateByContactExternalIDAndDefaults(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.do(t, http.MethodPost, "/api/v1/receivables", `{"contact":{"external_id":"cust-1"},"amount":99999999,"link_ttl_hours":1}`)
	expect(t, r, http.StatusCreated, "")
	var o one
	r.JSON(t, &o)
	if o.Data.ContactID != f.contact || o.Data.Currency != "USD" || o.Data.Status != "pending" {
		t.Fatalf("created %+v", o.Data)
	}
	if want := "2026-11-22T02:21:17.000Z"; o.Data.LinkExpiresAt == nil || *o.Data.LinkExpiresAt != want {
		t.Errorf("link_expires_at %v, want %s (1 h TTL)", o.Data.LinkExpiresAt, want)
	}
}

func TestTenantsAndIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables", "")
	pay := f.create(t, "payables", "")
	otherToken := f.env.Token(t, "01J0OTHERTENANT00000000000")
	responses := []testenv.Response{
		f.env.Do(t, http.MethodGet, "/api/v1/receivables/"+it.ID, otherToken, ""),
		f.env.Do(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/cancel", otherToken, ""),
		f.env.Do(t, http.MethodPost, "/api/v1/receivables/"+it.ID+"/mark-paid", otherToken, "{}"),
		f.do(t, http.MethodGet, "/api/v1/receivables/not-a-ulid", ""),
		f.do(t, http.MethodPost, "/api/v1/receivables/not-a-ulid/cancel", ""),
		f.do(t, http.MethodGet, "/api/v1/payables/"+it.ID, ""),
		f.do(t, http.MethodGet, "/api/v1/receivables/"+strings.ToLower(it.ID), ""),
		f.env.Do(t, http.MethodPut, "/api/v1/payables/"+pay.ID, otherToken, `{"amount":5}`),
		f.env.Do(t, http.MethodDelete, "/api/v1/payables/"+pay.ID, otherToken, ""),
		f.do(t, http.MethodGet, "/api/v1/payables/not-a-ulid", ""),
		f.do(t, http.MethodPost, "/api/v1/payables/not-a-ulid/mark-disbursed", "{}"),
		f.do(t, http.MethodPost, "/api/v1/receivables/"+pay.ID+"/cancel", ""),
		f.do(t, http.MethodGet, "/api/v1/campaigns/not-a-ulid", ""),
		f.do(t, http.MethodPost, "/api/v1/campaigns/not-a-ulid/publish", ""),
		f.do(t, http.MethodGet, "/api/v1/transaction-field-definitions/not-a-ulid", ""),
		f.do(t, http.MethodPost, "/api/v1/transactions/not-a-ulid/campaign-assignment", `{"campaign_id":"01JD3X0Q4Z8W2E5R7T9Y1V3K5M"}`),
	}
	for _, action := range []string{"cancel", "resend-notification", "mark-disbursed", "revoke-link",
		"retry-disbursement", "verify-identity", "expire"} {
		responses = append(responses, f.env.Do(t, http.MethodPost, "/api/v1/payables/"+pay.ID+"/"+action, otherToken, ""))
	}
	for i, r := range responses {
		if r.Status != http.StatusNotFound || r.Code(t) != "resource_not_found" {
			t.Errorf("request %d: %d %s, want 404 resource_not_found", i, r.Status, r.Body)
		}
	}
	expect(t, f.do(t, http.MethodGet, "/api/v1/receivables/"+it.ID, ""), http.StatusOK, "")
	if got := f.show(t, "payables", pay.ID); got.Status != "pending" {
		t.Errorf("another tenant's requests moved the payable to %s", got.Status)
	}
	if n := len(f.env.Events(t, "01J0OTHERTENANT00000000000")); n != 0 {
		t.Errorf("another tenant's requests recorded %d events", n)
	}
	expect(t, f.env.Do(t, http.MethodGet, "/api/v1/receivables", "", ""), http.StatusUnauthorized, "unauthenticated")
}

func TestScheduledReceivableSendsAtSendAt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	it := f.create(t, "receivables", `,"send_at":"2026-11-23T09:00:00Z"`)
	if it.Status != "scheduled" || it.PaymentLinkURL != nil {
		t.Fatalf("created %+v", it)
	}
	if n := f.env.RunDue(t); n != 0 {
		t.Fatalf("ran %d rows before send_at", n)
	}
	f.env.Clock.Advance(32 * time.Hour)
	if n := f.env.RunDue(t); n != 1 {
		t.Fatalf("ran %d rows at send_at, want 1", n)
	}
	var o one
	f.do(t, http.MethodGet, "/api/v1/receivables/"+it.ID, "").JSON(t, &o)
	if o.Data.Status != "pending" || o.Data.PaymentLinkURL == nil {
		t.Fatalf("after send_at %+v", o.Data)
	}
	want := []string{"receivable.created", "notification.requested", "receivable.updated"}
	if diff := cmp.Diff(want, testenv.Types(f.env.Events(t, f.tenant))); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// The link's TTL (72 h) passes: expired.
	f.env.Clock.Advance(72 * time.Hour)
	f.env.RunDue(t)
	f.do(t, http.MethodGet, "/api/v1/receivables/"+it.ID, "").JSON(t, &o)
	if o.Data.Status != "expired" || o.Data.PaymentLinkURL != nil {
		t.Fatalf("after the TTL %+v", o.Data)
	}
}
