package app

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/optin-svc/internal/sms"
)

// Outcomes of a provider call (sms_send_attempts_total).
const (
	sendAccepted  = "accepted"  // the provider took the message
	sendRetryable = "retryable" // refused or unreachable; a retry may succeed
	sendRejected  = "rejected"  // refused for good
)

// Metrics are the SMS series an on-call person reads: provider calls by
// outcome and the provider's delivery reports by status.
type Metrics struct {
	attempts *prometheus.CounterVec
	reports  *prometheus.CounterVec
}

// NewMetrics registers the series on reg for provider (nil reg: counted,
// not exposed). Every label value the dashboards and alerts read exists
// from the start at 0, so a rate over them is never empty.
func NewMetrics(reg prometheus.Registerer, provider string) (*Metrics, error) {
	m := &Metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sms_send_attempts_total", Help: "SMS provider calls by provider and outcome (accepted, retryable, rejected).",
		}, []string{"provider", "outcome"}),
		reports: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sms_delivery_reports_total", Help: "Delivery reports received from the SMS provider by status (delivered, undelivered, failed, other).",
		}, []string{"provider", "status"}),
	}
	for _, o := range []string{sendAccepted, sendRetryable, sendRejected} {
		m.attempts.WithLabelValues(provider, o)
	}
	for _, s := range []string{"delivered", "undelivered", "failed", "other"} {
		m.reports.WithLabelValues(provider, s)
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.attempts, m.reports} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return nil, fmt.Errorf("registering sms metrics: %w", err)
			}
		}
	}
	return m, nil
}

// sent counts a provider call.
func (m *Metrics) sent(provider string, err error) {
	if m == nil {
		return
	}
	outcome := sendAccepted
	if err != nil {
		outcome = sendRejected
		if sms.AsError(err).Transient {
			outcome = sendRetryable
		}
	}
	m.attempts.WithLabelValues(provider, outcome).Inc()
}

// reported counts a delivery report by the provider's status.
func (m *Metrics) reported(provider, status string) {
	if m == nil {
		return
	}
	switch status {
	case "delivered", "undelivered", "failed":
	default:
		status = "other"
	}
	m.reports.WithLabelValues(provider, status).Inc()
}
