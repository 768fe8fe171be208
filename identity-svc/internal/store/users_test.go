package store_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/identity-svc/internal/user"
	"github.com/paylane/paylane/libs/ids"
)

func TestNewTenantsGetTheDefaultRoles(t *testing.T) {
	t.Parallel()
	s := store.New(testenv.NewDB(t).Pool)
	ten := newTenant(t, s, "Acme", now)
	got, err := s.ListRoles(context.Background(), ten.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := user.DefaultRoles()
	slices.SortFunc(want, func(a, b user.Role) int { return strings.Compare(a.Name, b.Name) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
}

// TestMigrationBackfillsTheDefaultRoles holds the role lists the migration
// gives tenants that existed before it equal to user.DefaultRoles.
func TestMigrationBackfillsTheDefaultRoles(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../migrations/0003_users.sql")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`\('([a-z]+)', ARRAY\[([^\]]*)\]\)`)
	got := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		got[m[1]] = strings.Split(strings.ReplaceAll(strings.ReplaceAll(m[2], "'", ""), " ", ""), ",")
	}
	want := map[string][]string{}
	for _, r := range user.DefaultRoles() {
		want[r.Name] = r.Abilities
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("migration's default roles (-want +got):\n%s", diff)
	}
}

func TestSignInLockoutWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := store.New(testenv.NewDB(t).Pool)
	const email = "ada@example.com"
	// Four failures, then a fifth after the window: no lock (the window restarts).
	for i := range 4 {
		if until, err := s.RecordSignInFailure(ctx, email, now.Add(time.Duration(i)*time.Minute)); err != nil || until != nil {
			t.Fatalf("failure %d: locked %v, err %v", i+1, until, err)
		}
	}
	late := now.Add(store.SignInWindow + time.Minute)
	if until, err := s.RecordSignInFailure(ctx, email, late); err != nil || until != nil {
		t.Fatalf("failure after the window: locked %v, err %v", until, err)
	}
	for i := range 3 {
		if until, _ := s.RecordSignInFailure(ctx, email, late.Add(time.Duration(i+1)*time.Second)); until != nil {
			t.Fatalf("failure %d of the new window locked", i+2)
		}
	}
	at := late.Add(10 * time.Second)
	until, err := s.RecordSignInFailure(ctx, email, at)
	if err != nil || until == nil || !until.Equal(at.Add(store.SignInLock)) {
		t.Fatalf("fifth failure: locked until %v, err %v; want %v", until, err, at.Add(store.SignInLock))
	}
	if got, _ := s.SignInLockedUntil(ctx, email, at.Add(store.SignInLock-time.Second)); got == nil {
		t.Error("not locked a second before the lock ends")
	}
	if got, _ := s.SignInLockedUntil(ctx, email, at.Add(store.SignInLock)); got != nil {
		t.Error("still locked when the lock ends")
	}
	if got, _ := s.SignInLockedUntil(ctx, "bob@example.com", at); got != nil {
		t.Error("another email is locked")
	}
}

func TestUsersAreTenantScoped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := store.New(testenv.NewDB(t).Pool)
	acme := newTenant(t, s, "Acme", now)
	other := newTenant(t, s, "Other", now)
	u := user.User{ID: ids.NewAt(now), TenantID: acme.ID, Email: "ada@example.com", Name: "Ada", Role: "owner", CreatedAt: now}
	link := store.Link{SecretSHA256: make([]byte, 32), ExpiresAt: now.Add(time.Hour)}
	if _, err := s.CreateUser(ctx, u, link); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetUser(ctx, other.ID, u.ID); !errors.Is(err, user.ErrNotFound) {
		t.Errorf("GetUser(other tenant) = %v, want ErrNotFound", err)
	}
	dup := u
	dup.ID = ids.NewAt(now)
	link.SecretSHA256 = append(make([]byte, 31), 1)
	if _, err := s.CreateUser(ctx, dup, link); !errors.Is(err, user.ErrEmailTaken) {
		t.Errorf("CreateUser(same email) = %v, want ErrEmailTaken", err)
	}
	dup.TenantID = other.ID
	link.SecretSHA256 = append(make([]byte, 31), 2)
	if _, err := s.CreateUser(ctx, dup, link); err != nil {
		t.Errorf("CreateUser(same email, other tenant) = %v", err)
	}
	bad := dup
	bad.ID, bad.Email, bad.Role = ids.NewAt(now), "x@example.com", "pilot"
	link.SecretSHA256 = append(make([]byte, 31), 3)
	if _, err := s.CreateUser(ctx, bad, link); !errors.Is(err, user.ErrUnknownRole) {
		t.Errorf("CreateUser(unknown role) = %v, want ErrUnknownRole", err)
	}
	// A link past its expiry does not open.
	if _, err := s.UseLink(ctx, make([]byte, 32), "$argon2id$x", now.Add(2*time.Hour)); !errors.Is(err, user.ErrLinkInvalid) {
		t.Errorf("UseLink(expired) = %v, want ErrLinkInvalid", err)
	}
	list, err := s.UsersByEmail(ctx, "ada@example.com")
	if err != nil || len(list) != 2 {
		t.Errorf("UsersByEmail = %d users, %v; want 2", len(list), err)
	}
}
