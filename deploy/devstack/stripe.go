package devstack

import (
	"context"

	"github.com/paylane/paylane/libs/testkit"
)

// startStripeMock runs stripe-mock (libs/testkit: the pinned version,
// built into the user's cache on first use) so the Stripe rail works
// locally: a tenant PUTs any sk_test_ key and walks a receivable through
// Checkout. When it cannot be built or started the stack runs without the
// Stripe rail (every tenant on the sandbox rail) and says so. It returns
// the function that stops it.
func (s *stack) startStripeMock(ctx context.Context) func() {
	url, stop, err := testkit.StartStripeMock(ctx, s.opts.ServiceLog)
	if err != nil {
		s.logf("stripe-mock did not start, the Stripe rail is off: %v", err)
		return func() {}
	}
	s.stripeURL = url
	s.logf("stripe-mock (Stripe's API for the Stripe rail) on %s", url)
	return func() {
		stop()
		s.logf("stripe-mock stopped")
	}
}
