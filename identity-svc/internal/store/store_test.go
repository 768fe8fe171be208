package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/identity-svc/internal/token"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// now is a fixed instant with the database's precision (microseconds).
var now = time.Date(2026, 5, 6, 7, 8, 9, 123456000, time.UTC)

// newStore marks the test parallel and gives it a store on a database of
// its own (returned too, for its owner role), with a background context.
func newStore(t *testing.T) (context.Context, *store.Store, testenv.DB) {
	t.Helper()
	t.Parallel()
	db := testenv.NewDB(t)
	return context.Background(), store.New(db.Pool), db
}

func newTenant(t *testing.T, s *store.Store, name string, at time.Time) tenant.Tenant {
	t.Helper()
	ten := tenant.New(ids.NewAt(at), at)
	ten.Name = name
	created, err := s.CreateTenant(context.Background(), ten)
	if err != nil {
		t.Fatalf("CreateTenant: %v", err)
	}
	return created
}

func newToken(t *testing.T, s *store.Store, tenantID, secret string, expires *time.Time) token.Token {
	t.Helper()
	m := token.Mint{Name: "ci", Abilities: []string{"api:view-contact"}, ExpiresAt: expires}
	tok, err := s.CreateToken(context.Background(), tenantID, m, token.Hash(secret), now)
	if err != nil {
		t.Fatalf("CreateToken: %v", err)
	}
	return tok
}

func TestTenantRoundTrip(t *testing.T) {
	ctx, s, _ := newStore(t)
	in := tenant.New(ids.NewAt(now), now)
	in.Name, in.SMSNumber = "Acme", "+15550001111"
	in.Flags = tenant.Flags{OptIn: true}
	in.Limits = tenant.Limits{BatchesInFlight: 4}
	created, err := s.CreateTenant(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, created); diff != "" {
		t.Errorf("CreateTenant() (-want +got):\n%s", diff)
	}
	got, err := s.GetTenant(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("GetTenant() (-want +got):\n%s", diff)
	}
	if _, err := s.GetTenant(ctx, ids.New()); !errors.Is(err, tenant.ErrNotFound) {
		t.Errorf("GetTenant(unknown) = %v, want ErrNotFound", err)
	}
}

func TestListTenantsNewestFirst(t *testing.T) {
	ctx, s, _ := newStore(t)
	a := newTenant(t, s, "A", now)
	b := newTenant(t, s, "B", now.Add(time.Second))
	c := newTenant(t, s, "C", now.Add(2*time.Second))
	list, total, err := s.ListTenants(ctx, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 {
		t.Errorf("total = %d, want 3", total)
	}
	if diff := cmp.Diff([]string{c.ID, b.ID}, tenantIDs(list)); diff != "" {
		t.Errorf("page 1 (-want +got):\n%s", diff)
	}
	list, _, err = s.ListTenants(ctx, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{a.ID}, tenantIDs(list)); diff != "" {
		t.Errorf("page 2 (-want +got):\n%s", diff)
	}
}

func tenantIDs(ts []tenant.Tenant) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func TestUpdateTenant(t *testing.T) {
	ctx, s, _ := newStore(t)
	a := newTenant(t, s, "A", now)
	b := newTenant(t, s, "B", now)
	later := now.Add(time.Minute)
	updated, err := s.UpdateTenant(ctx, a.ID, func(cur tenant.Tenant) (tenant.Tenant, error) {
		cur.Name, cur.SMSNumber, cur.UpdatedAt = "A2", "+15550002222", later
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Name != "A2" || updated.SMSNumber != "+15550002222" || !updated.UpdatedAt.Equal(later) || !updated.CreatedAt.Equal(now) {
		t.Errorf("UpdateTenant() = %+v", updated)
	}
	_, err = s.UpdateTenant(ctx, b.ID, func(cur tenant.Tenant) (tenant.Tenant, error) {
		cur.SMSNumber = "+15550002222"
		return cur, nil
	})
	if !errors.Is(err, tenant.ErrSMSNumberTaken) {
		t.Errorf("UpdateTenant(taken sms number) = %v, want ErrSMSNumberTaken", err)
	}
	_, err = s.UpdateTenant(ctx, ids.New(), func(cur tenant.Tenant) (tenant.Tenant, error) { return cur, nil })
	if !errors.Is(err, tenant.ErrNotFound) {
		t.Errorf("UpdateTenant(unknown) = %v, want ErrNotFound", err)
	}
}

func TestCreateTokenForUnknownTenant(t *testing.T) {
	ctx, s, _ := newStore(t)
	_, err := s.CreateToken(ctx, ids.New(), token.Mint{Name: "x", Abilities: []string{"a"}}, token.Hash("s"), now)
	if !errors.Is(err, tenant.ErrNotFound) {
		t.Errorf("CreateToken(unknown tenant) = %v, want tenant.ErrNotFound", err)
	}
}

func TestIntrospect(t *testing.T) {
	ctx, s, _ := newStore(t)
	ten := newTenant(t, s, "A", now)
	past := now.Add(-time.Hour)
	valid := newToken(t, s, ten.ID, "secret", nil)
	expired := newToken(t, s, ten.ID, "secret", &past)
	revoked := newToken(t, s, ten.ID, "secret", nil)
	if err := s.RevokeToken(ctx, ten.ID, revoked.ID, now); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		id     int64
		secret string
		want   error
	}{
		{"valid", valid.ID, "secret", nil},
		{"wrong secret", valid.ID, "other", token.ErrInvalid},
		{"unknown id", valid.ID + 1000, "secret", token.ErrInvalid},
		{"revoked", revoked.ID, "secret", token.ErrRevoked},
		{"expired", expired.ID, "secret", token.ErrExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, ten2, err := s.Introspect(ctx, tt.id, now, func(tok token.Token) error { return tok.Check(tt.secret, now) })
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("Introspect() = %v, want %v", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.ID != tt.id || tok.TenantID != ten.ID || ten2.ID != ten.ID {
				t.Errorf("Introspect() = token %d of %s, tenant %s", tok.ID, tok.TenantID, ten2.ID)
			}
		})
	}
}

func TestIntrospectTouchesLastUsedAtOncePerInterval(t *testing.T) {
	ctx, s, _ := newStore(t)
	ten := newTenant(t, s, "A", now)
	tok := newToken(t, s, ten.ID, "secret", nil)
	accept := func(token.Token) error { return nil }
	steps := []struct {
		at   time.Time
		want time.Time
	}{
		{now, now},                       // first use is written
		{now.Add(30 * time.Second), now}, // within the interval: no write
		{now.Add(token.TouchInterval), now.Add(token.TouchInterval)}, // stale: written again
	}
	for i, st := range steps {
		if _, _, err := s.Introspect(ctx, tok.ID, st.at, accept); err != nil {
			t.Fatal(err)
		}
		list, _, err := s.ListTokens(ctx, ten.ID, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := list[0].LastUsedAt; got == nil || !got.Equal(st.want) {
			t.Errorf("step %d: last_used_at = %v, want %v", i, got, st.want)
		}
	}
}

func TestTokensAreInvisibleWithoutTenantScope(t *testing.T) {
	ctx, s, db := newStore(t)
	ten := newTenant(t, s, "A", now)
	newToken(t, s, ten.ID, "secret", nil)
	for name, pool := range map[string]interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}{"app role": db.Pool, "owner role": db.Owner} {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM tokens`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s without tenant scope sees %d token rows, want 0", name, n)
		}
	}
}

func TestTokenOfTenantAIsNotVisibleToTenantB(t *testing.T) {
	ctx, s, _ := newStore(t)
	a := newTenant(t, s, "A", now)
	b := newTenant(t, s, "B", now)
	tokA := newToken(t, s, a.ID, "secret", nil)
	newToken(t, s, b.ID, "secret", nil)

	list, total, err := s.ListTokens(ctx, b.ID, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(list) != 1 || list[0].TenantID != b.ID {
		t.Errorf("ListTokens(B) = %d rows of total %d, want only B's token", len(list), total)
	}
	if err := s.RevokeToken(ctx, b.ID, tokA.ID, now); !errors.Is(err, token.ErrNotFound) {
		t.Errorf("RevokeToken(B, A's token) = %v, want ErrNotFound", err)
	}
	list, _, err = s.ListTokens(ctx, a.ID, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].RevokedAt != nil {
		t.Errorf("A's token after B's revoke attempt = %+v, want it unrevoked", list)
	}
}

func TestRevokeToken(t *testing.T) {
	ctx, s, db := newStore(t)
	ten := newTenant(t, s, "A", now)
	tok := newToken(t, s, ten.ID, "secret", nil)
	if err := s.RevokeToken(ctx, ten.ID, tok.ID, now); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeToken(ctx, ten.ID, tok.ID, now.Add(time.Hour)); err != nil {
		t.Fatalf("revoking again = %v, want nil", err)
	}
	list, _, err := s.ListTokens(ctx, ten.ID, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := list[0].RevokedAt; got == nil || !got.Equal(now) {
		t.Errorf("revoked_at = %v, want the first revocation %v", got, now)
	}
	var events int
	if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE payload->>'type' = 'token.revoked'`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if events != 1 {
		t.Errorf("token.revoked events in the outbox = %d, want 1", events)
	}
	if err := s.RevokeToken(ctx, ten.ID, tok.ID+1000, now); !errors.Is(err, token.ErrNotFound) {
		t.Errorf("RevokeToken(unknown) = %v, want ErrNotFound", err)
	}
}
