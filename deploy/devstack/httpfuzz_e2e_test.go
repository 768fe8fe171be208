package devstack

import (
	"context"
	"testing"
	"time"

	"github.com/paylane/paylane/deploy/internal/apifuzz"
)

// httpFuzzSample is the number of hostile requests of the sample in
// `make test`; `make fuzz` sends at least 50,000 (deploy/cmd/fuzz).
const httpFuzzSample = 400

// TestHTTPFuzzSample sends a fixed sample of hostile requests derived from
// the served OpenAPI document (wrong types, missing fields, NUL and
// invalid UTF-8, huge and deeply nested bodies, odd Content-Types, broken
// ids and query strings, raw malformed requests) one at a time, always the
// same ones (seed 1): no answer is 500 or more, every 4xx is the error
// envelope with X-Request-Id, none hangs, and another tenant's creates,
// sent meanwhile, all succeed.
func TestHTTPFuzzSample(t *testing.T) {
	stack, e := startWithClient(t)
	rep, err := apifuzz.Pass(context.Background(), apifuzz.Target{
		GatewayURL: stack.info.GatewayURL, CAFile: stack.info.CAFile, Admin: e.admin,
	}, apifuzz.PassOptions{Requests: httpFuzzSample, Workers: 1, Seed: 1, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep.Line())
	if rep.Requests != httpFuzzSample {
		t.Errorf("%d requests sent, want %d", rep.Requests, httpFuzzSample)
	}
	if rep.BystanderSent == 0 {
		t.Error("no request of the other tenant was sent during the pass")
	}
	if rep.Failed() {
		t.Errorf("%s; %d of the other tenant's %d creates failed\n%s", rep.Line(), rep.BystanderFailed, rep.BystanderSent, rep.Summary())
	}
}
