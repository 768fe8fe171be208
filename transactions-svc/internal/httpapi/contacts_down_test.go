package httpapi_test

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/httpapi"
	"github.com/paylane/paylane/transactions-svc/internal/peers"
	"github.com/paylane/paylane/transactions-svc/internal/testenv"
)

// TestContactsDownIs503: while contacts-svc cannot answer, a create is 503
// service_unavailable with Retry-After (the contact may well exist; 422 would
// tell the client to change a valid request), and nothing is written.
func TestContactsDownIs503(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	e.App = app.New(e.Store, peers.NewContacts(dead, nil, time.Second), e.Links, e.Clock.Now)
	verifier, err := authz.NewStaticVerifier(e.Signer.JWKS())
	if err != nil {
		t.Fatal(err)
	}
	e.Web = httpx.NewApp(nil)
	httpapi.Register(e.Web, httpapi.Deps{App: e.App, Verifier: verifier, Pool: e.Pool})
	tenant := ids.New()
	for _, path := range []string{"receivables", "payables"} {
		r := e.Do(t, http.MethodPost, "/api/v1/"+path, e.Token(t, tenant), `{"contact_id":"`+ids.New()+`","amount":100}`,
			"Idempotency-Key: down-"+path)
		expect(t, r, http.StatusServiceUnavailable, "service_unavailable")
		if r.Header.Get("Retry-After") == "" {
			t.Errorf("%s: 503 without Retry-After", path)
		}
	}
	if evs := e.Events(t, tenant); len(evs) != 0 {
		t.Errorf("a refused create recorded %v", testenv.Types(evs))
	}
}
