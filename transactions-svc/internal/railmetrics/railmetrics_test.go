package railmetrics_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paylane/paylane/transactions-svc/internal/railmetrics"
)

func TestObserveCountsByRailOperationAndOutcome(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m, err := railmetrics.New(reg, "sandbox")
	if err != nil {
		t.Fatal(err)
	}
	if got := gather(t, reg); len(got) != 9 {
		t.Fatalf("series before any operation = %d, want every operation and outcome of the rail (9): %v", len(got), got)
	}
	m.Observe("sandbox", railmetrics.Charge, railmetrics.Declined)
	m.Observe("sandbox", railmetrics.Charge, railmetrics.Declined)
	m.Observe("stripe", railmetrics.Disbursement, railmetrics.Error)
	var none *railmetrics.Metrics
	none.Observe("sandbox", railmetrics.Charge, railmetrics.Succeeded) // counts nothing, never panics

	// A second registration on the same registry counts on the same series.
	again, err := railmetrics.New(reg, "sandbox")
	if err != nil {
		t.Fatal(err)
	}
	again.Observe("sandbox", railmetrics.Charge, railmetrics.Declined)

	got := gather(t, reg)
	for key, want := range map[string]float64{
		"sandbox charge declined":      3,
		"sandbox charge succeeded":     0,
		"stripe disbursement error":    1,
		"sandbox identity_check error": 0,
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("rail_operations_total{%s} = %v (present %v), want %v", key, v, ok, want)
		}
	}
}

// gather reads rail_operations_total as "rail operation outcome" → value.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "rail_operations_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range s.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			out[l["rail"]+" "+l["operation"]+" "+l["outcome"]] = s.GetCounter().GetValue()
		}
	}
	return out
}
