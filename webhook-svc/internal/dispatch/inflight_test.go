package dispatch_test

import (
	"context"
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// A delivery whose dispatcher stopped between its claim and its record (the
// process was killed while the attempt was in flight) is not lost: no other
// dispatcher takes it while the lease holds, and once the lease has run out
// the next dispatcher sends it again with the same webhook-id and records it
// once.
func TestDeliveryInFlightWhenTheProcessStopsIsRetried(t *testing.T) {
	t.Parallel()
	clock, env, rc, ep := newEndpoint(t, nil)
	ev := env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	ctx := context.Background()
	now := clock.Now()
	// The stopped process's claim: its attempt never gets recorded.
	claims, err := env.Store.ClaimDue(ctx, now, now.Add(dispatch.DefaultLease), 10, ids.New())
	if err != nil || len(claims) != 1 {
		t.Fatalf("ClaimDue = %+v, %v; want one claim", claims, err)
	}

	d := newDispatcher(t, env, rc)
	if n := runOnce(t, d); n != 0 {
		t.Fatalf("a dispatcher handled %d deliveries within the stopped one's lease, want 0", n)
	}
	clock.Advance(dispatch.DefaultLease)
	if n := runOnce(t, d); n != 1 {
		t.Fatalf("after the lease a dispatcher handled %d deliveries, want 1", n)
	}
	reqs := rc.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("webhook-id") != ev.ID {
		t.Fatalf("receiver got %d requests (first webhook-id %q), want one for %s", len(reqs), webhookID(reqs), ev.ID)
	}
	rows := env.Deliveries(t, tenant, ep.ID)
	if len(rows) != 1 || rows[0].Status != webhook.StatusSucceeded || rows[0].AttemptCount != 1 {
		t.Errorf("deliveries = %+v; want one succeeded after one attempt", rows)
	}
}

// webhookID is the webhook-id of the first request, for messages.
func webhookID(reqs []testenv.Request) string {
	if len(reqs) == 0 {
		return ""
	}
	return reqs[0].Header.Get("webhook-id")
}
