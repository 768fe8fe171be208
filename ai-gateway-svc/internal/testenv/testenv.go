// Package testenv runs ai-gateway-svc for a test against fake contacts-svc
// and transactions-svc and a fake identity-svc serving a real signing
// key's JWKS.
package testenv

import (
	"context"
	"testing"
	"time"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/testkit"
)

// Service is ai-gateway-svc running for one test.
type Service struct {
	Addrs    svcrun.Addrs
	Signer   *authz.Signer
	Contacts *Contacts
	Txns     *Transactions
}

// BaseURL is the URL of the HTTP listener.
func (s Service) BaseURL() string { return "http://" + s.Addrs.HTTP }

// Token mints an internal token of tenant with the ai_gateway flag as
// given and the abilities.
func (s Service) Token(t testing.TB, tenant string, flag bool, abilities ...string) string {
	t.Helper()
	tok, _, err := s.Signer.Sign(authz.Claims{TenantID: tenant, TokenID: 1, Abilities: abilities,
		Flags: authz.Flags{AIGateway: flag}}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Start runs ai-gateway-svc until the test ends, with configure applied to
// the configuration last (when not nil).
func Start(t testing.TB, configure func(*aigatewaysvc.Config)) Service {
	t.Helper()
	signer := testkit.NewSigner(t)
	identityURL := testkit.IdentityJWKS(t, signer)
	contacts, txns := NewContacts(t), NewTransactions(t)

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan svcrun.Addrs, 1)
	done := make(chan error, 1)
	cfg := aigatewaysvc.Config{
		Base:        envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0", IdentityURL: identityURL},
		ContactsURL: contacts.URL, TransactionsURL: txns.URL,
	}
	if configure != nil {
		configure(&cfg)
	}
	go func() { done <- aigatewaysvc.Run(ctx, cfg, svcrun.WithReady(func(a svcrun.Addrs) { ready <- a })) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ai-gateway-svc Run: %v", err)
		}
	})
	select {
	case a := <-ready:
		return Service{Addrs: a, Signer: signer, Contacts: contacts, Txns: txns}
	case err := <-done:
		t.Fatalf("ai-gateway-svc stopped before it was ready: %v", err)
	}
	return Service{}
}

// Response is an answer read whole (testkit.Response).
type Response = testkit.Response

// Do sends a request with token (and headers as name, value pairs) and
// reads the answer (testkit.Do).
func (s Service) Do(t testing.TB, method, path, token string, body any, headers ...string) Response {
	t.Helper()
	return testkit.Do(t, method, s.BaseURL()+path, token, body, headers...)
}
