package discovery

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newTestConsul(t *testing.T, f *fakeConsul, opts ...Option) *Consul {
	t.Helper()
	opts = append([]Option{WithRetry(time.Millisecond, 5*time.Millisecond), WithWaitTime(time.Minute)}, opts...)
	c, err := NewConsul(f.srv.URL, opts...)
	if err != nil {
		t.Fatalf("NewConsul: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func resolveN(t *testing.T, r Resolver, service string, n int) map[string]int {
	t.Helper()
	seen := map[string]int{}
	for range n {
		u, err := r.Resolve(t.Context(), service)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", service, err)
		}
		seen[u]++
	}
	return seen
}

func TestConsulResolvesHealthyInstancesOnly(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	f.set("identity-svc",
		fakeInstance{Address: "10.0.0.1", Port: 8080, Passing: true},
		fakeInstance{Address: "10.0.0.2", Port: 8080, Passing: false},
		fakeInstance{Address: "10.0.0.3", Port: 8081, Passing: true},
	)
	c := newTestConsul(t, f)

	got := resolveN(t, c, "identity-svc", 4)
	want := map[string]int{"http://10.0.0.1:8080": 2, "http://10.0.0.3:8081": 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round-robin over passing instances (-want +got):\n%s", diff)
	}
	for _, q := range f.snapshotQueries() {
		if !q.Passing {
			t.Errorf("health query %+v did not ask for passing instances only", q)
		}
	}
}

func TestConsulFallsBackToNodeAddress(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	f.set("gateway", fakeInstance{Port: 9443, Passing: true})
	c := newTestConsul(t, f, WithScheme("https"))

	got, err := c.Resolve(t.Context(), "gateway")
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if want := "https://10.9.9.0:9443"; got != want {
		t.Errorf("Resolve = %q, want %q", got, want)
	}
}

func TestConsulCachesAndWatches(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	f.set("contacts-svc", fakeInstance{Address: "10.0.0.1", Port: 8080, Passing: true})
	c := newTestConsul(t, f)

	resolveN(t, c, "contacts-svc", 5)
	waitFor(t, f.parked, "contacts-svc")
	var fresh int
	for _, q := range f.snapshotQueries() {
		if q.Index == 0 {
			fresh++
		}
	}
	if fresh != 1 {
		t.Errorf("non-blocking health queries = %d, want 1 (later answers come from the cache)", fresh)
	}

	f.set("contacts-svc", fakeInstance{Address: "10.0.0.7", Port: 8080, Passing: true})
	waitFor(t, f.parked, "contacts-svc") // the watch took the change and waits again
	got := resolveN(t, c, "contacts-svc", 2)
	if diff := cmp.Diff(map[string]int{"http://10.0.0.7:8080": 2}, got); diff != "" {
		t.Errorf("after the change (-want +got):\n%s", diff)
	}
}

func TestConsulNoInstances(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	f.set("batch-svc", fakeInstance{Address: "10.0.0.1", Port: 8080, Passing: false})
	c := newTestConsul(t, f)

	_, err := c.Resolve(t.Context(), "batch-svc")
	if !errors.Is(err, ErrNoInstances) {
		t.Errorf("Resolve error = %v, want ErrNoInstances", err)
	}
}

func TestConsulKeepsLastInstancesWhileConsulFails(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	f.set("webhook-svc", fakeInstance{Address: "10.0.0.1", Port: 8080, Passing: true})
	c := newTestConsul(t, f)
	resolveN(t, c, "webhook-svc", 1)
	waitFor(t, f.parked, "webhook-svc")

	f.setFailing(true)
	waitFor(t, f.failed, "webhook-svc")
	waitFor(t, f.failed, "webhook-svc") // the first failure has been handled
	if got := resolveN(t, c, "webhook-svc", 1); got["http://10.0.0.1:8080"] != 1 {
		t.Errorf("during the outage Resolve = %v, want the last known instance", got)
	}

	f.set("webhook-svc", fakeInstance{Address: "10.0.0.2", Port: 8080, Passing: true})
	f.setFailing(false)
	waitFor(t, f.parked, "webhook-svc")
	if got := resolveN(t, c, "webhook-svc", 1); got["http://10.0.0.2:8080"] != 1 {
		t.Errorf("after recovery Resolve = %v, want the new instance", got)
	}
}

func TestConsulUnreachableAtFirst(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	f.setFailing(true)
	c := newTestConsul(t, f)

	_, err := c.Resolve(t.Context(), "optin-svc")
	if err == nil || errors.Is(err, ErrNoInstances) {
		t.Errorf("Resolve error = %v, want the consul failure", err)
	}
}

func TestConsulResetsIndexWhenItGoesBackwards(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	f.set("identity-svc", fakeInstance{Address: "10.0.0.1", Port: 8080, Passing: true})
	c := newTestConsul(t, f)
	resolveN(t, c, "identity-svc", 1)
	waitFor(t, f.parked, "identity-svc")

	f.resetIndex(3)
	waitFor(t, f.parked, "identity-svc")
	var indexes []uint64
	for _, q := range f.snapshotQueries() {
		indexes = append(indexes, q.Index)
	}
	if diff := cmp.Diff([]uint64{0, 11, 0, 3}, indexes); diff != "" {
		t.Errorf("query indexes (-want +got):\n%s", diff)
	}
}

func TestConsulTokenAndClose(t *testing.T) {
	t.Parallel()
	f := newFakeConsul(t)
	f.set("identity-svc", fakeInstance{Address: "10.0.0.1", Port: 8080, Passing: true})
	c := newTestConsul(t, f, WithToken("acl-token"))
	resolveN(t, c, "identity-svc", 1)

	for _, tok := range f.snapshotTokens() {
		if tok != "acl-token" {
			t.Errorf("X-Consul-Token = %q, want acl-token", tok)
		}
	}
	c.Close()
	if _, err := c.Resolve(t.Context(), "identity-svc"); !errors.Is(err, ErrClosed) {
		t.Errorf("Resolve after Close error = %v, want ErrClosed", err)
	}
}

func TestNewConsulRejectsBadOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		addr string
		opts []Option
	}{
		{"empty address", "", nil},
		{"zero retry", "127.0.0.1:8500", []Option{WithRetry(0, time.Second)}},
		{"longest below first", "127.0.0.1:8500", []Option{WithRetry(time.Second, time.Millisecond)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if c, err := NewConsul(tt.addr, tt.opts...); err == nil {
				c.Close()
				t.Error("NewConsul succeeded, want an error")
			}
		})
	}
}
