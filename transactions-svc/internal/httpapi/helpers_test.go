package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// item is the part of a receivable or payable the tests read.
type item struct {
	ID             string  `json:"id"`
	TransactionID  string  `json:"transaction_id"`
	ContactID      string  `json:"contact_id"`
	Status         string  `json:"status"`
	Amount         int64   `json:"amount"`
	Currency       string  `json:"currency"`
	PaymentLinkURL *string `json:"payment_link_url"`
	LinkExpiresAt  *string `json:"link_expires_at"`
	CampaignID     *string `json:"campaign_id"`
	FailureReason  *string `json:"failure_reason"`
	PaymentMethod  *string `json:"payment_method"`
	PaidAt         *string `json:"paid_at"`
	SendAt         *string `json:"send_at"`
	Destination    *struct {
		Type  string `json:"type"`
		Last4 string `json:"last4"`
	} `json:"destination"`
}

type one struct {
	Data item `json:"data"`
}

// fixture is a tenant with a contact, on a fresh service.
type fixture struct {
	env     *testenv.Env
	tenant  string
	token   string
	contact string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	e := testenv.New(t)
	tenant := ids.New()
	c := e.Contact(t, tenant, "cust-1", "Ada", "+14155550123")
	return fixture{env: e, tenant: tenant, token: e.Token(t, tenant), contact: c.ID}
}

// create makes a receivable or payable ("receivables", "payables") and
// returns it.
func (f fixture) create(t *testing.T, path, extra string) item {
	t.Helper()
	body := fmt.Sprintf(`{"contact_id":%q,"amount":1250%s}`, f.contact, extra)
	r := f.env.Do(t, http.MethodPost, "/api/v1/"+path, f.token, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create %s: %d %s", path, r.Status, r.Body)
	}
	var o one
	r.JSON(t, &o)
	return o.Data
}

func (f fixture) do(t *testing.T, method, path, body string, headers ...string) testenv.Response {
	t.Helper()
	return f.env.Do(t, method, path, f.token, body, headers...)
}

func expect(t *testing.T, r testenv.Response, status int, code string) {
	t.Helper()
	if r.Status != status || (code != "" && r.Code(t) != code) {
		t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, status, code)
	}
}
