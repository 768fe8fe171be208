// Package testenv gives webhook-svc's tests real infrastructure: a fresh
// migrated database (libs/testkit), the use cases, dispatcher and consumer
// on it, a controllable clock, TLS receivers and internal tokens.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/netip"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/internal/app"
	"github.com/paylane/paylane/webhook-svc/internal/ingest"
	"github.com/paylane/paylane/webhook-svc/internal/store"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
	"github.com/paylane/paylane/webhook-svc/migrations"
)

// DB is a fresh webhook-svc database of one test.
type DB struct {
	AppDSN, OwnerDSN string
	// Pool connects as the app role (row-level security applies).
	Pool *pgxpool.Pool
	// Owner connects as the tables' owner.
	Owner *pgxpool.Pool
}

// NewDB returns a migrated database for this test, dropped at cleanup.
func NewDB(t testing.TB) DB {
	t.Helper()
	pg := testkit.PG(t)
	appDSN := pg.Database(t, "webhook", migrations.Sets()...)
	owner := pg.OwnerDSN(t, appDSN)
	return DB{AppDSN: appDSN, OwnerDSN: owner, Pool: pg.Pool(t, appDSN), Owner: pg.Pool(t, owner)}
}

// Key returns a fresh 32-byte encryption key.
func Key(t testing.TB) []byte {
	t.Helper()
	k := make([]byte, sealer.KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

// NewClock returns a clock (testkit.Clock) at a fixed instant.
func NewClock() *testkit.Clock {
	return testkit.NewClock(time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC))
}

// Env is webhook-svc's data layer for one test.
type Env struct {
	DB     DB
	Store  *store.Store
	Sealer *sealer.Sealer
	App    *app.App
	Ingest *ingest.Ingester
	Clock  *testkit.Clock
}

// New returns an environment on a fresh database; the use cases and the
// consumer run on clock (nil: real time).
func New(t testing.TB, clock *testkit.Clock) *Env {
	t.Helper()
	db := NewDB(t)
	sl, err := sealer.New(Key(t))
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(db.Pool)
	var now func() time.Time
	if clock != nil {
		now = clock.Now
	}
	return &Env{DB: db, Store: st, Sealer: sl, App: app.New(st, sl, now), Ingest: ingest.New(st, now, nil, nil), Clock: clock}
}

// Endpoint creates an active endpoint subscribed to patterns and returns it
// with its secret.
func (e *Env) Endpoint(t testing.TB, tenantID, url string, patterns ...string) webhook.WithSecret {
	t.Helper()
	name := "receiver"
	ep, err := e.App.CreateEndpoint(context.Background(), idempotency.Tx{}, tenantID, webhook.Input{Name: &name, URL: &url, SubscribedEvents: &patterns})
	if err != nil {
		t.Fatalf("creating endpoint: %v", err)
	}
	return ep
}

// Event makes an event of typ for tenantID (occurring at the clock's time
// when there is one) and hands it to the consumer.
func (e *Env) Event(t testing.TB, tenantID, typ string, data any) events.Envelope {
	t.Helper()
	env, err := events.New(typ, tenantID, "", data)
	if err != nil {
		t.Fatal(err)
	}
	if e.Clock != nil {
		env.OccurredAt = e.Clock.Now()
	}
	if err := e.Ingest.Handle(context.Background(), env); err != nil {
		t.Fatalf("ingesting %s: %v", typ, err)
	}
	return env
}

// Deliveries lists an endpoint's deliveries (up to 100, newest first).
func (e *Env) Deliveries(t testing.TB, tenantID, endpointID string) []webhook.Delivery {
	t.Helper()
	list, _, err := e.App.ListDeliveries(context.Background(), tenantID, endpointID, app.DeliveryFilter{}, app.Page{Limit: 100})
	if err != nil {
		t.Fatalf("listing deliveries: %v", err)
	}
	return list
}

// GetEndpoint reads an endpoint.
func (e *Env) GetEndpoint(t testing.TB, tenantID, id string) webhook.Endpoint {
	t.Helper()
	ep, err := e.App.GetEndpoint(context.Background(), tenantID, id)
	if err != nil {
		t.Fatalf("reading endpoint: %v", err)
	}
	return ep
}

// Loopback is the allow-list that lets deliveries reach local receivers.
func Loopback() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

// MustJSON encodes v.
func MustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
