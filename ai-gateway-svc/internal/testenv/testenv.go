// Package testenv runs ai-gateway-svc for a test against fake contacts-svc
// and transactions-svc and a fake identity-svc serving a real signing
// key's JWKS.
package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	aigatewaysvc "github.com/paylane/paylane/ai-gateway-svc"
	"github.com/paylane/paylane/libs/authz"
)

// Service is ai-gateway-svc running for one test.
type Service struct {
	Addrs    aigatewaysvc.Addrs
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
	seed, err := authz.GenerateSeed()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := authz.NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	identity := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/internal/v1/jwks" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(signer.JWKS())
	}))
	t.Cleanup(identity.Close)
	contacts, txns := NewContacts(t), NewTransactions(t)

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan aigatewaysvc.Addrs, 1)
	done := make(chan error, 1)
	cfg := aigatewaysvc.Config{
		HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0",
		IdentityURL: identity.URL, ContactsURL: contacts.URL, TransactionsURL: txns.URL,
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

// Response is an answer read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it cannot.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// Code is the error.code of an error answer.
func (r Response) Code() string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Code
}

// Do sends a request with token (and headers as name, value pairs) and
// reads the answer.
func (s Service) Do(t testing.TB, method, path, token string, body any, headers ...string) Response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.BaseURL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
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
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}
