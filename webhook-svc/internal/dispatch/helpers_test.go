package dispatch_test

import (
	"context"
	"net/http"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/netguard"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const tenant = "01JTENANT0000000000000000A"

// newDispatcher returns a dispatcher on env's store and clock that trusts
// rc's certificate and may reach loopback, with opts applied.
func newDispatcher(t *testing.T, env *testenv.Env, rc *testenv.Receiver, opts ...func(*dispatch.Options)) *dispatch.Dispatcher {
	t.Helper()
	o := dispatch.Options{
		Store: env.Store, Sealer: env.Sealer, Concurrency: 8, Log: testenv.Logger(t),
		Transport: netguard.Options{Allow: testenv.Loopback(), RootCAs: rc.Roots()},
		Jitter:    func() float64 { return 0.5 }, // no spread: waits are the schedule's
	}
	if env.Clock != nil {
		o.Now = env.Clock.Now
	}
	for _, f := range opts {
		f(&o)
	}
	d, err := dispatch.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// runOnce sends what is due and returns how many deliveries it handled.
func runOnce(t *testing.T, d *dispatch.Dispatcher) int {
	t.Helper()
	n, err := d.RunOnce(context.Background())
	if err != nil {
		t.Fatalf("RunOnce: %v", err)
	}
	return n
}

// verify checks a received request with the independent Standard Webhooks
// library, ignoring the timestamp's age (tests run on a fixed clock).
func verify(t *testing.T, secret string, r testenv.Request) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	return wh.VerifyIgnoringTimestamp(r.Body, r.Header)
}

// failing answers every request with status.
func failing(status int) func(int, http.ResponseWriter, testenv.Request) {
	return func(_ int, w http.ResponseWriter, _ testenv.Request) { w.WriteHeader(status) }
}

// noBreaker keeps the circuit breaker closed, so every due attempt is made.
func noBreaker(o *dispatch.Options) { o.BreakerFailures = 1 << 30 }

// newEndpoint is a fresh environment on its own clock with a receiver that
// answers with respond and tenant's endpoint for every event sending to it.
func newEndpoint(t *testing.T, respond func(int, http.ResponseWriter, testenv.Request)) (*testkit.Clock, *testenv.Env, *testenv.Receiver, webhook.WithSecret) {
	t.Helper()
	clock := testenv.NewClock()
	env := testenv.New(t, clock)
	rc := testenv.NewReceiver(t, respond)
	return clock, env, rc, env.Endpoint(t, tenant, rc.URL(), "*")
}
