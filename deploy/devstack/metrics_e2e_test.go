package devstack

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/paylane/paylane/deploy/monitoring"
)

// mixedTraffic sends requests of several methods through the gateway over
// its kept-alive connections, reaching every service behind it: what a
// scrape must survive (label values copied out of reused buffers).
func mixedTraffic(t *testing.T, c *contactsE2E) {
	t.Helper()
	for i := range 5 {
		national, _ := c.phone()
		ct := c.create(t, c.token, fmt.Sprintf(`{"first_name":"Mix","phone":%q}`, national))
		path := "/api/v1/contacts/" + ct.ID
		c.call(t, http.MethodPatch, path, c.token, `{"last_name":"Traffic"}`, nil)
		c.call(t, http.MethodGet, path, c.token, "", nil)
		c.call(t, http.MethodPost, "/api/v1/receivables", c.token,
			fmt.Sprintf(`{"contact_id":%q,"amount":%d,"description":"Mixed"}`, ct.ID, 100+i), nil)
		for _, p := range []string{"/api/v1/receivables", "/api/v1/webhook-endpoints", "/api/v1/batches",
			"/api/v1/suppression-list", "/api/v1/campaigns", "/api/v1/nowhere"} {
			c.call(t, http.MethodGet, p, c.token, "", nil)
		}
		c.call(t, "PROPFIND", "/api/v1/contacts", c.token, "", nil)
		c.call(t, http.MethodPost, "/api/v1/gateway/resolve-contact", c.token, `{"name":"Mix"}`, nil)
		c.call(t, http.MethodGet, "/dashboard/sign-in", "", "", nil)
		c.call(t, http.MethodDelete, path, c.token, "", nil)
	}
}

// scrapeEveryProcess reads /metrics of every process's internal listener
// and parses it as Prometheus does: every one answers 200, parses, counts
// its requests, and carries only standard method labels. Then every series
// an alert or a dashboard panel of deploy/monitoring reads must be exposed
// by some process.
func scrapeEveryProcess(t *testing.T, internal map[string]string) {
	t.Helper()
	exposed := scrapeAll(t, internal)
	queries, err := monitoring.Queries()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		series, err := monitoring.Series(q.Expr)
		if err != nil {
			t.Errorf("%s: %v", q.Where, err)
			continue
		}
		for _, name := range series {
			if !exposed[name] {
				t.Errorf("%s reads %s, which no process exposes", q.Where, name)
			}
		}
	}
}

// scrapeAll checks every process's /metrics (see scrapeEveryProcess) and
// returns the series names they expose, a histogram's _bucket, _sum and
// _count included.
func scrapeAll(t *testing.T, internal map[string]string) map[string]bool {
	t.Helper()
	if len(internal) == 0 {
		t.Fatal("no internal listeners to scrape")
	}
	exposed := map[string]bool{}
	standard := map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true,
		"DELETE": true, "OPTIONS": true, "CONNECT": true, "TRACE": true, "other": true}
	for name, addr := range internal {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Errorf("%s /metrics: %v", name, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s /metrics = %d: %s", name, resp.StatusCode, body)
			continue
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
		if err != nil {
			t.Errorf("%s /metrics does not parse: %v", name, err)
			continue
		}
		for family, f := range families {
			exposed[family] = true
			if f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY {
				exposed[family+"_bucket"], exposed[family+"_sum"], exposed[family+"_count"] = true, true, true
			}
		}
		requests := families["http_requests_total"]
		if requests == nil || len(requests.GetMetric()) == 0 {
			t.Errorf("%s /metrics has no http_requests_total", name)
			continue
		}
		for _, m := range requests.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "method" && !standard[l.GetValue()] {
					t.Errorf("%s: method label %q", name, l.GetValue())
				}
				if l.GetName() == "route" && l.GetValue() == "/" && name == gatewayProcess {
					t.Errorf("%s: the catch-all route label %q", name, l.GetValue())
				}
			}
		}
	}
	return exposed
}
