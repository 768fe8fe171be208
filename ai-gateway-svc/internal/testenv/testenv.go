// Package testenv runs ai-gateway-svc for a test against the fakes of
// contacts-svc and transactions-svc published beside their clients
// (contacts-svc/client/clienttest, transactions-svc/client/clienttest) and
// a fake identity-svc serving a real signing key's JWKS.
//
// Start seeds tenant t1 in the transactions-svc fake: T1, a receivable
// draft (its receivable R1) of 12.50 USD; T2, a pending receivable; T3, a
// payable draft; and a prepare naming contact "missing" is refused as an
// unknown contact.
package testenv

import (
	"context"
	"testing"
	"time"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	contactsclient "github.com/paylane/paylane/contacts-svc/client"
	contactstest "github.com/paylane/paylane/contacts-svc/client/clienttest"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/testkit"
	transactionstest "github.com/paylane/paylane/transactions-svc/client/clienttest"
)

// Service is ai-gateway-svc running for one test.
type Service struct {
	Addrs    aigatewaysvc.Addrs
	Signer   *authz.Signer
	Contacts *contactstest.Contacts
	Txns     *transactionstest.Fake
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

// Candidates makes a search of tenant for name answer a candidate per
// score, best first (contact ids name-a, name-b, ...; phone_last4 0123).
func (s Service) Candidates(tenant, name string, scores ...float64) {
	cands := make([]contactsclient.Candidate, len(scores))
	for i, score := range scores {
		id := name + "-" + string(rune('a'+i))
		ext, first := "ext-"+id, name
		cands[i] = contactsclient.Candidate{ContactID: id, ExternalID: &ext, FirstName: &first, PhoneLast4: "0123", Score: score}
	}
	s.Contacts.SetCandidates(tenant, name, cands...)
}

// Start runs ai-gateway-svc until the test ends, with configure applied to
// the configuration last (when not nil).
func Start(t testing.TB, configure func(*aigatewaysvc.Config)) Service {
	t.Helper()
	signer := testkit.NewSigner(t)
	identityURL := testkit.IdentityJWKS(t, signer)
	contacts, txns := contactstest.New(t), transactionstest.New(t)
	for _, tx := range []transactionstest.Transaction{
		{ID: "T1", ChildID: "R1", Direction: "receivable", Status: "draft", Amount: 1250, Currency: "USD"},
		{ID: "T2", ChildID: "R2", Direction: "receivable", Status: "pending", Amount: 1250, Currency: "USD"},
		{ID: "T3", ChildID: "P3", Direction: "payable", Status: "draft", Amount: 1250, Currency: "USD"},
	} {
		txns.AddTransaction("t1", tx)
	}
	txns.RefuseContact("missing")

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan aigatewaysvc.Addrs, 1)
	done := make(chan error, 1)
	cfg := aigatewaysvc.Config{
		HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0",
		IdentityURL: identityURL, ContactsURL: contacts.URL, TransactionsURL: txns.URL,
		Ready: func(a aigatewaysvc.Addrs) { ready <- a },
	}
	if configure != nil {
		configure(&cfg)
	}
	go func() { done <- aigatewaysvc.Run(ctx, cfg) }()
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
