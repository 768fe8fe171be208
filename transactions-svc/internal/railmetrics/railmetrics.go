// Package railmetrics counts the operations of the payment rails
// (rail_operations_total{rail,operation,outcome}), one counter for every
// rail: the use cases report each answer of a rail (internal/rail adapters'
// results, a provider's settling event, a rail that never answered) through
// Observe in the same words, so one alert and one dashboard panel cover
// them all.
package railmetrics

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Operations a rail performs.
const (
	Charge        = "charge"         // collect a receivable
	IdentityCheck = "identity_check" // verify a payout recipient
	Disbursement  = "disbursement"   // pay out a payable
)

// Outcomes of an operation.
const (
	// Succeeded: paid, verified or disbursed.
	Succeeded = "succeeded"
	// Declined: the rail answered and refused on the customer's account
	// (a declined card, a failed identity check): the customer's to fix.
	Declined = "declined"
	// Error: the rail failed (processor error, disbursement failure, no
	// answer): ours or the provider's to look at.
	Error = "error"
)

// Metrics holds the counter. A nil *Metrics counts nothing.
type Metrics struct {
	ops *prometheus.CounterVec
}

// New registers the counter on reg (nil: counted, not exposed), with every
// operation and outcome of rails present from the start at 0, so rates and
// ratios over them are never empty.
func New(reg prometheus.Registerer, rails ...string) (*Metrics, error) {
	m := &Metrics{ops: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rail_operations_total",
		Help: "Payment rail operations by rail, operation (charge, identity_check, disbursement) and outcome (succeeded, declined, error).",
	}, []string{"rail", "operation", "outcome"})}
	for _, rail := range rails {
		for _, op := range []string{Charge, IdentityCheck, Disbursement} {
			for _, o := range []string{Succeeded, Declined, Error} {
				m.ops.WithLabelValues(rail, op, o)
			}
		}
	}
	if reg != nil {
		if err := reg.Register(m.ops); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, fmt.Errorf("registering rail metrics: %w", err)
			}
			m.ops = are.ExistingCollector.(*prometheus.CounterVec)
		}
	}
	return m, nil
}

// Observe counts one operation of rail with its outcome.
func (m *Metrics) Observe(rail, operation, outcome string) {
	if m != nil {
		m.ops.WithLabelValues(rail, operation, outcome).Inc()
	}
}
