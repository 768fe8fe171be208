// Package testenv gives identity-svc's tests real infrastructure: a fresh
// migrated database (from libs/testkit), the service running in-process on
// port 0, and a reader for the events it publishes.
package testenv

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	identity "github.com/paylane/paylane/identity-svc"
	"github.com/paylane/paylane/identity-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
)

// AdminToken is the admin token of services started by Start.
const AdminToken = "test-admin-token-0123456789"

// ServiceSecret is the service secret of services started by Start.
const ServiceSecret = "test-service-secret-0123456789"

// DB is a fresh identity-svc database of one test.
type DB struct {
	AppDSN, OwnerDSN string
	// Pool connects as the app role (row-level security applies).
	Pool *pgxpool.Pool
	// Owner connects as the tables' owner; with FORCE row-level security it
	// too sees tenant rows only within a tenant scope.
	Owner *pgxpool.Pool
}

// NewDB returns a migrated database for this test, dropped at cleanup.
func NewDB(t testing.TB) DB {
	t.Helper()
	pg := testkit.PG(t)
	app := pg.Database(t, "identity", migrations.Sets()...)
	owner := pg.OwnerDSN(t, app)
	return DB{AppDSN: app, OwnerDSN: owner, Pool: pg.Pool(t, app), Owner: pg.Pool(t, owner)}
}

// Signer returns a signer with a fresh key, and its seed.
func Signer(t testing.TB) (*authz.Signer, []byte) {
	t.Helper()
	seed, err := authz.GenerateSeed()
	if err != nil {
		t.Fatal(err)
	}
	s, err := authz.NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	return s, seed
}

// Service is identity-svc running for one test.
type Service struct {
	Addrs  identity.Addrs
	Signer *authz.Signer
	DB     DB
}

// BaseURL is the URL of the HTTP listener.
func (s Service) BaseURL() string { return "http://" + s.Addrs.HTTP }

// Start runs identity-svc on a fresh database with listeners on port 0 (and
// the outbox relay when brokers are given) until the test ends.
func Start(t testing.TB, brokers []string) Service {
	t.Helper()
	db := NewDB(t)
	signer, seed := Signer(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan identity.Addrs, 1)
	done := make(chan error, 1)
	cfg := identity.Config{
		HTTPAddr:         "127.0.0.1:0",
		InternalAddr:     "127.0.0.1:0",
		DatabaseURL:      db.AppDSN,
		DBMaxConns:       4,
		KafkaBrokers:     brokers,
		SigningKey:       seed,
		AdminToken:       AdminToken,
		ServiceSecret:    ServiceSecret,
		InternalTokenTTL: time.Minute,
		Ready:            func(a identity.Addrs) { ready <- a },
	}
	go func() { done <- identity.Run(ctx, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("identity-svc Run: %v", err)
		}
	})
	select {
	case a := <-ready:
		return Service{Addrs: a, Signer: signer, DB: db}
	case err := <-done:
		t.Fatalf("identity-svc stopped before it was ready: %v", err)
	}
	return Service{}
}

// ReadEvent reads the identity topic from the start until an event that
// match accepts arrives, and returns it. It fails the test when ctx ends
// first.
func ReadEvent(ctx context.Context, t testing.TB, brokers []string, match func(events.Envelope) bool) events.Envelope {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:     brokers,
		GroupID:     "identity-test-" + ids.New(),
		Topic:       events.TopicIdentity,
		StartOffset: kafka.FirstOffset,
		MaxWait:     100 * time.Millisecond,
	})
	defer r.Close()
	for {
		msg, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("reading %s: %v", events.TopicIdentity, err)
		}
		var env events.Envelope
		if err := json.Unmarshal(msg.Value, &env); err != nil {
			t.Fatalf("decoding event %s: %v", msg.Value, err)
		}
		if match(env) {
			return env
		}
	}
}

// OfType matches events of one type.
func OfType(typ string) func(events.Envelope) bool {
	return func(env events.Envelope) bool { return env.Type == typ }
}
