package sandbox

import (
	"context"

	"github.com/paylane/paylane/transactions-svc/internal/rail"
)

// Rail is the sandbox simulator as a rail.Adapter: it answers at once,
// deterministically, from the card or destination numbers (contract
// section 6), and moves no money.
type Rail struct{}

var _ rail.Adapter = Rail{}

// Provider is rail.Sandbox.
func (Rail) Provider() rail.Provider { return rail.Sandbox }

// Charge answers a card payment; a retry always succeeds.
func (Rail) Charge(_ context.Context, c rail.Charge) (rail.Result, error) {
	outcome, reason := Charge(c.CardNumber, c.Retry)
	res := rail.Result{Outcome: outcomeOf(outcome), Reason: reason}
	if c.CardNumber != "" {
		res.Brand, res.Last4 = Brand(c.CardNumber), Last4(c.CardNumber)
	}
	return res, nil
}

// Verify runs the identity check: a destination ending 0000 fails it.
func (Rail) Verify(_ context.Context, v rail.Verify) (rail.Result, error) {
	if ok, reason := IdentityCheck(v.Last4); !ok {
		return rail.Result{Outcome: rail.Declined, Reason: reason}, nil
	}
	return rail.Result{Outcome: rail.Approved}, nil
}

// Disburse pays out: a destination ending 1111 fails the first attempt.
func (Rail) Disburse(_ context.Context, d rail.Disbursement) (rail.Result, error) {
	outcome, reason := Disburse(d.Last4, d.Attempt)
	return rail.Result{Outcome: outcomeOf(outcome), Reason: reason}, nil
}

func outcomeOf(o Outcome) rail.Outcome {
	switch o {
	case Approved:
		return rail.Approved
	case Declined:
		return rail.Declined
	}
	return rail.Error
}
