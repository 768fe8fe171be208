package idemscope

import (
	"context"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestMemoryBindsFirstOwnerUntilExpiry(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}
	s := NewMemory(clk.now, 0)
	ctx := context.Background()
	bind := func(scope, owner, want string) {
		t.Helper()
		got, err := s.Bind(ctx, scope, owner)
		if err != nil || got != want {
			t.Fatalf("Bind(%q, %q) = %q, %v; want %q", scope, owner, got, err, want)
		}
	}
	bind("k", "contacts", "contacts")
	bind("k", "webhooks", "contacts")
	bind("j", "webhooks", "webhooks")
	clk.t = clk.t.Add(TTL - time.Second)
	bind("k", "webhooks", "contacts")
	clk.t = clk.t.Add(time.Second) // k is 24 h old: expired, free again
	bind("k", "webhooks", "webhooks")
}

func TestMemoryIsBounded(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}
	s := NewMemory(clk.now, 2).(*memoryStore)
	ctx := context.Background()
	for i, scope := range []string{"a", "b", "c"} {
		clk.t = clk.t.Add(time.Duration(i) * time.Second)
		if _, err := s.Bind(ctx, scope, "svc"); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.entries) != 2 {
		t.Fatalf("%d entries, want 2", len(s.entries))
	}
	if _, ok := s.entries["a"]; ok {
		t.Error("the oldest binding was kept past the bound")
	}
	if got, _ := s.Bind(ctx, "a", "other"); got != "other" {
		t.Errorf("a dropped binding: bound to %q, want a fresh binding", got)
	}
}

func TestScopeSeparatesTenants(t *testing.T) {
	t.Parallel()
	if Scope("T1", "K") == Scope("T2", "K") || Scope("T1", "K") == Scope("T1K", "") {
		t.Error("scopes of different tenants or keys collide")
	}
}
