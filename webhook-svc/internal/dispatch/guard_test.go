package dispatch_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// With the allow-list off, a receiver on 127.0.0.1 is refused when dialling:
// nothing reaches it and the attempt says why.
func TestLoopbackIsRefusedWithoutAllowList(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, testenv.NewClock())
	rc := testenv.NewReceiver(t, nil)
	ep := env.Endpoint(t, tenant, rc.URL(), "*")
	env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	d := newDispatcher(t, env, rc, func(o *dispatch.Options) { o.Transport.Allow = nil })
	runOnce(t, d)
	if n := len(rc.Requests()); n != 0 {
		t.Fatalf("receiver on loopback got %d requests, want none", n)
	}
	row := env.Deliveries(t, tenant, ep.ID)[0]
	if row.Status != webhook.StatusRetrying || row.ResponseStatus != nil || row.LastError == nil ||
		!strings.Contains(*row.LastError, "not allowed") {
		t.Fatalf("delivery = %+v, want a retrying attempt refused as not allowed", row)
	}
}

// After rotate-secret both secrets sign for 24 h; then only the new one.
func TestRotationSignsWithBothSecretsFor24Hours(t *testing.T) {
	t.Parallel()
	clock, env, rc, ep := newEndpoint(t, nil)
	rotated, err := env.App.RotateSecret(context.Background(), idempotency.Tx{}, tenant, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rotated.SigningSecret == ep.SigningSecret || !strings.HasPrefix(rotated.SigningSecret, webhook.SecretPrefix) {
		t.Fatalf("rotated secret %q, want a new whsec_ secret", rotated.SigningSecret)
	}
	d := newDispatcher(t, env, rc)
	env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	runOnce(t, d)
	clock.Advance(24*time.Hour + time.Second)
	env.Event(t, tenant, "contact.updated", map[string]string{"k": "v"})
	runOnce(t, d)

	got := rc.Requests()
	if len(got) != 2 {
		t.Fatalf("receiver got %d requests, want 2", len(got))
	}
	within, after := got[0], got[1]
	if n := len(strings.Fields(within.Header.Get("webhook-signature"))); n != 2 {
		t.Errorf("within 24 h: %d signatures, want 2", n)
	}
	for name, secret := range map[string]string{"old": ep.SigningSecret, "new": rotated.SigningSecret} {
		if err := verify(t, secret, within); err != nil {
			t.Errorf("within 24 h the %s secret does not verify: %v", name, err)
		}
	}
	if err := verify(t, rotated.SigningSecret, after); err != nil {
		t.Errorf("after 24 h the new secret does not verify: %v", err)
	}
	if err := verify(t, ep.SigningSecret, after); err == nil {
		t.Error("after 24 h the old secret still verifies")
	}
}

// Disabling or deleting an endpoint cancels its open deliveries; an
// inactive endpoint gets no new ones.
func TestDisableAndDeleteCancelOpenDeliveries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := testenv.New(t, testenv.NewClock())
	rc := testenv.NewReceiver(t, nil)
	disabled := env.Endpoint(t, tenant, rc.URL(), "*")
	deleted := env.Endpoint(t, tenant, rc.URL(), "*")
	env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	off := false
	if _, err := env.App.UpdateEndpoint(ctx, idempotency.Tx{}, tenant, disabled.ID, webhook.Input{IsActive: &off}, webhook.Patch); err != nil {
		t.Fatal(err)
	}
	if err := env.App.DeleteEndpoint(ctx, tenant, deleted.ID); err != nil {
		t.Fatal(err)
	}
	env.Event(t, tenant, "contact.updated", map[string]string{"k": "v"})
	if n := runOnce(t, newDispatcher(t, env, rc)); n != 0 || len(rc.Requests()) != 0 {
		t.Fatalf("handled %d, receiver got %d; want nothing sent", n, len(rc.Requests()))
	}
	rows := env.Deliveries(t, tenant, disabled.ID)
	if len(rows) != 1 || rows[0].Status != webhook.StatusCancelled {
		t.Errorf("inactive endpoint's deliveries = %+v, want the one made before, cancelled", rows)
	}
}

// Two dispatchers on one database share the due deliveries: each is sent
// once.
func TestTwoDispatchersSendEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	rc := testenv.NewReceiver(t, nil)
	ep := env.Endpoint(t, tenant, rc.URL(), "*")
	const events = 60
	for range events {
		env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		d := newDispatcher(t, env, rc, func(o *dispatch.Options) {
			o.Now, o.Concurrency, o.PollInterval = nil, 4, 20*time.Millisecond
		})
		wg.Go(func() {
			if err := d.Run(ctx); err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	waitFor(t, func() bool { return len(rc.Requests()) >= events })
	cancel()
	wg.Wait()
	seen := map[string]int{}
	for _, r := range rc.Requests() {
		seen[r.Header.Get("webhook-id")]++
		wh, err := standardwebhooks.NewWebhook(ep.SigningSecret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(r.Body, r.Header); err != nil {
			t.Errorf("signature (timestamp checked): %v", err)
		}
	}
	if len(seen) != events {
		t.Errorf("%d distinct events received, want %d", len(seen), events)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("event %s received %d times, want once", id, n)
		}
	}
	for _, row := range env.Deliveries(t, tenant, ep.ID) {
		if row.Status != webhook.StatusSucceeded || row.AttemptCount != 1 {
			t.Errorf("delivery %s: %s after %d attempts, want succeeded once", row.ID, row.Status, row.AttemptCount)
		}
	}
}

// waitFor polls cond until it holds, failing the test after a generous
// bound (a hang, not a timing assertion).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 30 s")
}
