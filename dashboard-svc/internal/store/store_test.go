package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paylane/paylane/dashboard-svc/internal/session"
	"github.com/paylane/paylane/dashboard-svc/internal/store"
	"github.com/paylane/paylane/dashboard-svc/migrations"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var now = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

func newStore(t *testing.T) *store.Store {
	t.Helper()
	pg := testkit.PG(t)
	return store.New(pg.Pool(t, pg.Database(t, "dashboard", migrations.Sets()...)))
}

func create(t *testing.T, s *store.Store, id, user string) session.Session {
	t.Helper()
	se := session.Session{IDHash: session.Hash(id), TenantID: "T1", UserID: user, CSRFToken: "csrf-" + id, CreatedAt: now}
	if err := s.Create(context.Background(), se); err != nil {
		t.Fatal(err)
	}
	return se
}

func TestIdleExpiryAndTouch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	se := create(t, s, "a", "U1")
	// Used within a minute: no write; later: last_seen_at moves.
	got, err := s.Get(ctx, se.IDHash, now.Add(30*time.Second))
	if err != nil || !got.LastSeenAt.Equal(now) || got.CSRFToken != "csrf-a" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	at := now.Add(11 * time.Hour)
	if got, err = s.Get(ctx, se.IDHash, at); err != nil || !got.LastSeenAt.Equal(at) {
		t.Fatalf("Get after 11 h = %+v, %v; want last_seen_at moved", got, err)
	}
	if _, err := s.Get(ctx, se.IDHash, at.Add(session.IdleTimeout)); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Get 12 h after the last use = %v, want ErrNotFound", err)
	}
	// The expired session is gone, even for an earlier clock.
	if _, err := s.Get(ctx, se.IDHash, at); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("expired session still readable: %v", err)
	}
	if _, err := s.Get(ctx, session.Hash("unknown"), now); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Get(unknown) = %v", err)
	}
}

func TestDeleteUserKeepsOneAndSweep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	keep := create(t, s, "a", "U1")
	other := create(t, s, "b", "U1")
	stranger := create(t, s, "c", "U2")
	if err := s.DeleteUser(ctx, "T1", "U1", keep.IDHash); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, keep.IDHash, now); err != nil {
		t.Errorf("the kept session: %v", err)
	}
	if _, err := s.Get(ctx, other.IDHash, now); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("the user's other session: %v, want ErrNotFound", err)
	}
	if _, err := s.Get(ctx, stranger.IDHash, now); err != nil {
		t.Errorf("another user's session: %v", err)
	}
	n, err := s.Sweep(ctx, now.Add(session.IdleTimeout))
	if err != nil || n != 2 {
		t.Errorf("Sweep = %d, %v; want the 2 idle sessions", n, err)
	}
}
