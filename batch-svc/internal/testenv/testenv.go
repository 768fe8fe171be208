// Package testenv runs batch-svc for tests the way a deployment does: Run
// on a fresh migrated database (libs/testkit), listeners on port 0,
// internal tokens verified against a JWKS served over HTTP, contacts-svc's
// fake beside its client (contacts-svc/client/clienttest: the bulk upsert
// with contacts-svc's rules, rows recorded per batch and row), and
// transactions-svc's (transactions-svc/client/clienttest: the bulk create
// and the campaign steps; a test adds the campaigns it names). They stand
// in for the downstream services, not for the database.
package testenv

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	batchsvc "github.com/paylane/paylane/batch-svc"
	"github.com/paylane/paylane/batch-svc/migrations"
	contactstest "github.com/paylane/paylane/contacts-svc/client/clienttest"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/testkit"
	transactionstest "github.com/paylane/paylane/transactions-svc/client/clienttest"
)

// Service is batch-svc running for one test.
type Service struct {
	Addrs  svcrun.Addrs
	Signer *authz.Signer
	// Contacts is contacts-svc's fake (contacts-svc/client/clienttest).
	Contacts *contactstest.Contacts
	// Txns is transactions-svc's fake (transactions-svc/client/clienttest).
	Txns *transactionstest.Fake
	// Pool connects to the service's database as its app role.
	Pool *pgxpool.Pool
	// OwnerPool connects as the owner (row-level security does not apply
	// to it: tests read across tenants and the outbox).
	OwnerPool *pgxpool.Pool
}

// BaseURL is the URL of the HTTP listener.
func (s Service) BaseURL() string { return "http://" + s.Addrs.HTTP }

// Token mints an internal token of tenant with the limits and abilities.
func (s Service) Token(t testing.TB, tenant string, limits authz.Limits, abilities ...string) string {
	t.Helper()
	tok, _, err := s.Signer.Sign(authz.Claims{TenantID: tenant, TokenID: 1, Abilities: abilities, Limits: limits}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// signerTokens hands out service tokens signed by the test's key.
type signerTokens struct{ s *authz.Signer }

func (st signerTokens) ServiceToken(_ context.Context, tenantID string, abilities []string) (string, error) {
	tok, _, err := st.s.Sign(authz.Claims{TenantID: tenantID, Abilities: abilities}, time.Hour)
	return tok, err
}

// Start runs batch-svc until the test ends, with configure applied to the
// configuration last (when not nil) and opts handed to Run (seams such as a
// listtotal.Cap). The package's TestMain must be testkit.Main.
func Start(t testing.TB, configure func(*batchsvc.Config), opts ...svcrun.Option) Service {
	t.Helper()
	pg := testkit.PG(t)
	appDSN := pg.Database(t, "batch_svc", migrations.Sets()...)
	signer := testkit.NewSigner(t)
	return start(t, appDSN, signer, configure, opts...)
}

// StartOn runs a second replica beside first: the same database and
// signing key, its own fake peers.
func StartOn(t testing.TB, first Service, configure func(*batchsvc.Config)) Service {
	t.Helper()
	return start(t, first.Pool.Config().ConnString(), first.Signer, configure)
}

func start(t testing.TB, appDSN string, signer *authz.Signer, configure func(*batchsvc.Config), opts ...svcrun.Option) Service {
	t.Helper()
	pg := testkit.PG(t)
	identityURL := testkit.IdentityJWKS(t, signer)
	contacts, txns := contactstest.New(t), transactionstest.New(t)

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan svcrun.Addrs, 1)
	done := make(chan error, 1)
	cfg := batchsvc.Config{
		Base: envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0", DatabaseURL: appDSN, DBMaxConns: 8,
			IdentityURL: identityURL},
		ContactsURL: contacts.URL, TransactionsURL: txns.URL,
		// The workers' tokens come from signerTokens; the secret is never used.
		ServiceSecret: "unused-service-secret", Workers: 2, Lease: 5 * time.Second, PollInterval: 50 * time.Millisecond,
		RetryBase: 20 * time.Millisecond, SubmissionsPerMinute: 10, InFlight: 2,
	}
	if configure != nil {
		configure(&cfg)
	}
	opts = append(opts, batchsvc.WithTokens(signerTokens{signer}), svcrun.WithReady(func(a svcrun.Addrs) { ready <- a }))
	go func() { done <- batchsvc.Run(ctx, cfg, opts...) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("batch-svc Run: %v", err)
		}
	})
	select {
	case a := <-ready:
		return Service{Addrs: a, Signer: signer, Contacts: contacts, Txns: txns, Pool: pg.Pool(t, appDSN),
			OwnerPool: pg.Pool(t, pg.OwnerDSN(t, appDSN))}
	case err := <-done:
		t.Fatalf("batch-svc stopped before it was ready: %v", err)
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

// WaitFor polls the batch's header until done accepts it (or the test's
// deadline), returning the last header read.
func (s Service) WaitFor(t testing.TB, token, id string, done func(Header) bool) Header {
	t.Helper()
	for {
		var env struct{ Data Header }
		r := s.Do(t, http.MethodGet, "/api/v1/batches/"+id, token, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET batch %s = %d %s", id, r.Status, r.Body)
		}
		r.JSON(t, &env)
		if done(env.Data) {
			return env.Data
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Header is a batch header as the tests read it.
type Header struct {
	ID             string          `json:"id"`
	Type           string          `json:"type"`
	Status         string          `json:"status"`
	TotalItems     int             `json:"total_items"`
	ProcessedItems int             `json:"processed_items"`
	SucceededItems int             `json:"succeeded_items"`
	FailedItems    int             `json:"failed_items"`
	Options        map[string]any  `json:"options"`
	FailureReason  *string         `json:"failure_reason"`
	StartedAt      *string         `json:"started_at"`
	CompletedAt    *string         `json:"completed_at"`
	CreatedAt      string          `json:"created_at"`
	UpdatedAt      string          `json:"updated_at"`
	Links          json.RawMessage `json:"links"`
}

// Final reports whether the header's status ends the batch.
func (h Header) Final() bool {
	return h.Status == "completed" || h.Status == "partial_failure" || h.Status == "failed"
}
