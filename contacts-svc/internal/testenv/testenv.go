// Package testenv runs contacts-svc for tests the way a deployment does: Run
// on a fresh migrated database (libs/testkit) with listeners on port 0,
// internal tokens verified against a JWKS served over HTTP as identity-svc
// serves it, and, when brokers are given, the outbox relay publishing to
// them.
package testenv

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/segmentio/kafka-go"

	contacts "github.com/paylane/paylane/contacts-svc"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/envconf"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/svcrun"
	"github.com/paylane/paylane/libs/testkit"
)

// Service is contacts-svc running for one test.
type Service struct {
	Addrs  svcrun.Addrs
	Signer *authz.Signer
	// Pool connects to the service's database as its app role.
	Pool *pgxpool.Pool
}

// BaseURL is the URL of the HTTP listener.
func (s Service) BaseURL() string { return "http://" + s.Addrs.HTTP }

// Token mints an internal token of tenant with the abilities.
func (s Service) Token(t testing.TB, tenant string, abilities ...string) string {
	t.Helper()
	tok, _, err := s.Signer.Sign(authz.Claims{TenantID: tenant, TokenID: 1, Abilities: abilities}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Start runs contacts-svc until the test ends. The package's TestMain must
// be testkit.Main.
func Start(t testing.TB, brokers []string) Service {
	t.Helper()
	return StartWith(t, brokers, nil)
}

// StartWith is Start with configure applied to the configuration last
// (when not nil) and opts handed to Run (seams such as a listtotal.Cap).
func StartWith(t testing.TB, brokers []string, configure func(*contacts.Config), opts ...svcrun.Option) Service {
	t.Helper()
	pg := testkit.PG(t)
	appDSN := pg.Database(t, "contacts_svc", migrations.Sets()...)
	signer := testkit.NewSigner(t)

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan svcrun.Addrs, 1)
	done := make(chan error, 1)
	cfg := contacts.Config{
		Base: envconf.Base{HTTPAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0",
			DatabaseURL: appDSN, DBMaxConns: 8, KafkaBrokers: brokers,
			IdentityURL: testkit.IdentityJWKS(t, signer)},
		DefaultRegion: "US",
	}
	if configure != nil {
		configure(&cfg)
	}
	opts = append(opts, svcrun.WithReady(func(a svcrun.Addrs) { ready <- a }))
	go func() { done <- contacts.Run(ctx, cfg, opts...) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("contacts-svc Run: %v", err)
		}
	})
	select {
	case a := <-ready:
		return Service{Addrs: a, Signer: signer, Pool: pg.Pool(t, appDSN)}
	case err := <-done:
		t.Fatalf("contacts-svc stopped before it was ready: %v", err)
	}
	return Service{}
}

// ReadUntil reads the contacts topic from the start as a new consumer group
// and returns the events of tenant in the order read, up to and including
// the first one that last accepts. It fails the test when ctx ends first.
func ReadUntil(ctx context.Context, t testing.TB, brokers []string, tenant string, last func(events.Envelope) bool) []events.Envelope {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:     brokers,
		GroupID:     "contacts-test-" + ids.New(),
		GroupTopics: []string{events.TopicContacts},
		StartOffset: kafka.FirstOffset,
		MaxWait:     100 * time.Millisecond,
	})
	defer r.Close()
	var out []events.Envelope
	for {
		msg, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("reading %s after %d events: %v", events.TopicContacts, len(out), err)
		}
		var env events.Envelope
		if err := json.Unmarshal(msg.Value, &env); err != nil {
			t.Fatalf("decoding event %s: %v", msg.Value, err)
		}
		if string(msg.Key) != env.TenantID {
			t.Errorf("event %s has key %q, want its tenant %q", env.ID, msg.Key, env.TenantID)
		}
		if env.TenantID != tenant {
			continue
		}
		out = append(out, env)
		if last(env) {
			return out
		}
	}
}
