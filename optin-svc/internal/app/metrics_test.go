package app_test

import (
	"net/http"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/paylane/paylane/optin-svc/internal/testenv"
)

// smsSeries scrapes optin-svc's /metrics and returns the SMS counters as
// "name provider label-value" → value (label-value: outcome or status).
func smsSeries(t *testing.T, env *testenv.Env) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + env.InternalAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, name := range []string{"sms_send_attempts_total", "sms_delivery_reports_total"} {
		f := families[name]
		if f == nil {
			t.Fatalf("/metrics lacks %s", name)
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			out[name+" "+l["provider"]+" "+l["outcome"]+l["status"]] = m.GetCounter().GetValue()
		}
	}
	return out
}

// expectSMSSeries compares the SMS counters named in want.
func expectSMSSeries(t *testing.T, env *testenv.Env, want map[string]float64) {
	t.Helper()
	got := smsSeries(t, env)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
}
