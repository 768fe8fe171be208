package dispatch

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the dispatcher's Prometheus series.
type metrics struct {
	attempts  *prometheus.CounterVec
	deferrals prometheus.Counter
	duration  prometheus.Histogram
	lag       prometheus.Histogram
	disabled  prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "webhook_delivery_attempts_total", Help: "Delivery attempts by outcome (succeeded, failed).",
		}, []string{"outcome"}),
		deferrals: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "webhook_delivery_deferrals_total", Help: "Attempts deferred because the endpoint's circuit breaker was open.",
		}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "webhook_delivery_attempt_duration_seconds", Help: "Duration of delivery attempts.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
		}),
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "webhook_delivery_first_attempt_lag_seconds", Help: "From the event to the end of its first delivery attempt.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 12),
		}),
		disabled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "webhook_endpoints_disabled_total", Help: "Endpoints disabled after consecutive failures.",
		}),
	}
	// Both outcomes exist from the start at 0, so the failure ratio the
	// alerts and dashboards read is never empty.
	m.attempts.WithLabelValues("succeeded")
	m.attempts.WithLabelValues("failed")
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.attempts, m.deferrals, m.duration, m.lag, m.disabled} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, fmt.Errorf("registering dispatcher metrics: %w", err)
			}
		}
	}
	return m, nil
}
