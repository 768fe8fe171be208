package testenv

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/listtotal"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/testkit"
	webhooksvc "github.com/paylane/paylane/webhook-svc"
)

// Service is webhook-svc running in-process for one test, with a JWKS
// server standing in for identity-svc.
type Service struct {
	Addrs  svcrun.Addrs
	DB     DB
	signer *authz.Signer
}

// ServiceOptions tune StartService.
type ServiceOptions struct {
	Brokers []string
	Allow   []netip.Prefix
	Roots   *x509.CertPool
	// Concurrency and Conns tune the dispatcher and pool (8 each when 0).
	Concurrency int
	Conns       int32
	// ListCap, when not zero, is the cap of exact list totals (the seam of
	// listtotal.DefaultCap).
	ListCap listtotal.Cap
}

// StartService runs webhook-svc on a fresh database (migrated by Run) with
// listeners on port 0 until the test ends.
func StartService(t testing.TB, o ServiceOptions) *Service {
	t.Helper()
	signer := testkit.NewSigner(t)
	db := NewDB(t)
	if o.Concurrency == 0 {
		o.Concurrency = 8
	}
	if o.Conns == 0 {
		o.Conns = 8
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan svcrun.Addrs, 1)
	done := make(chan error, 1)
	cfg := webhooksvc.Config{
		Base: envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0",
			DatabaseURL: db.AppDSN, MigrateDatabaseURL: db.OwnerDSN, DBMaxConns: o.Conns,
			KafkaBrokers: o.Brokers, IdentityURL: testkit.IdentityJWKS(t, signer)},
		EncryptionKey: Key(t),
		AllowCIDRs:    o.Allow, DispatchConcurrency: o.Concurrency, Consumers: 3, PollInterval: 50 * time.Millisecond,
	}
	opts := []svcrun.Option{webhooksvc.WithRootCAs(o.Roots), svcrun.WithLogger(Logger(t)),
		svcrun.WithReady(func(a svcrun.Addrs) { ready <- a })}
	if o.ListCap != 0 {
		opts = append(opts, svcrun.WithSeam(o.ListCap))
	}
	go func() { done <- webhooksvc.Run(ctx, cfg, opts...) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook-svc Run: %v", err)
		}
	})
	select {
	case a := <-ready:
		return &Service{Addrs: a, DB: db, signer: signer}
	case err := <-done:
		t.Fatalf("webhook-svc stopped before it was ready: %v", err)
	}
	return nil
}

// Token returns an internal token of tenantID with abilities.
func (s *Service) Token(t testing.TB, tenantID string, abilities ...string) string {
	t.Helper()
	tok, _, err := s.signer.Sign(authz.Claims{TenantID: tenantID, TokenID: 1, Abilities: abilities, RequestID: ids.New()}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Response is an API answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Decode unmarshals the body into v.
func (r Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// Code is error.code of an error answer.
func (r Response) Code(t testing.TB) string {
	t.Helper()
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	r.Decode(t, &e)
	return e.Error.Code
}

// Do sends a request to the service with token and optional headers
// (name, value pairs); body is sent as a string or encoded as JSON
// (testkit.Do).
func (s *Service) Do(t testing.TB, method, path, token string, body any, header ...string) Response {
	t.Helper()
	return Response(testkit.Do(t, method, "http://"+s.Addrs.HTTP+path, token, body, header...))
}
