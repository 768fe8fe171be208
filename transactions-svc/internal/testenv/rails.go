package testenv

import (
	"bytes"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/rail/striperail"
)

// RailKey is the key that seals payment-provider secrets under test.
func RailKey() []byte { return bytes.Repeat([]byte{7}, sealer.KeySize) }

// EnableRails turns the tenants' payment providers on, with Stripe's API at
// apiBase (a stripe-mock from testkit.StripeMock, or an address that does
// not answer). Call it before the first request.
func (e *Env) EnableRails(t testing.TB, apiBase string) {
	t.Helper()
	sl, err := sealer.New(RailKey())
	if err != nil {
		t.Fatal(err)
	}
	e.App.WithRails(&app.Rails{Stripe: striperail.New(striperail.Config{APIBase: apiBase, Timeout: 5 * time.Second}),
		Sealer: sl, PublicBase: PublicBaseURL})
}
