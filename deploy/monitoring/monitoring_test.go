package monitoring_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/paylane/paylane/deploy/monitoring"
)

// operationsDoc is docs/operations.md, where every alert's runbook and
// every dashboard is described.
func operationsDoc(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// anchors are the GitHub anchors of the document's headings.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	drop := regexp.MustCompile(`[^a-z0-9 _-]`)
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		out[strings.ReplaceAll(drop.ReplaceAllString(h, ""), " ", "-")] = true
	}
	return out
}

// TestAlertRules loads alerts.yaml as Prometheus does, requires the alerts
// on-call relies on, and for each alert a severity, a summary, a
// description and a runbook that exists in docs/operations.md.
func TestAlertRules(t *testing.T) {
	t.Parallel()
	groups, err := monitoring.Rules()
	if err != nil {
		t.Fatal(err)
	}
	have := anchors(operationsDoc(t))
	alerts := map[string]bool{}
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				t.Errorf("group %s: a rule without an alert name (recording rules belong elsewhere)", g.Name)
				continue
			}
			if alerts[r.Alert] {
				t.Errorf("alert %s defined twice", r.Alert)
			}
			alerts[r.Alert] = true
			if s := r.Labels["severity"]; s != "page" && s != "warning" {
				t.Errorf("alert %s: severity %q, want page or warning", r.Alert, s)
			}
			for _, a := range []string{"summary", "description"} {
				if strings.TrimSpace(r.Annotations[a]) == "" {
					t.Errorf("alert %s has no %s", r.Alert, a)
				}
			}
			url := r.Annotations["runbook_url"]
			anchor, ok := strings.CutPrefix(url, "docs/operations.md#")
			if !ok || !have[anchor] {
				t.Errorf("alert %s: runbook_url %q names no section of docs/operations.md", r.Alert, url)
			}
			if anchor != strings.ToLower(r.Alert) {
				t.Errorf("alert %s: its runbook section must be named after it, got %q", r.Alert, anchor)
			}
		}
	}
	for _, want := range []string{
		"PaylaneOutboxEventsStuck",        // outbox age
		"PaylaneConsumerLagHigh",          // consumer lag
		"PaylaneHigh5xxRatio",             // 5xx ratio
		"PaylaneWebhookEndpointDisabled",  // webhook auto-disables
		"PaylaneRailFailures",             // rail failures
		"PaylaneSMSSendFailures",          // SMS provider
		"PaylaneBatchesWaiting",           // batch queue
		"PaylaneWebhookDeliveriesFailing", // our side of webhooks
	} {
		if !alerts[want] {
			t.Errorf("alert %s is missing", want)
		}
	}
}

// TestDashboards parses every panel's query as PromQL, and requires unique
// uids, titled panels and each dashboard listed in docs/operations.md.
func TestDashboards(t *testing.T) {
	t.Parallel()
	dashboards, err := monitoring.Dashboards()
	if err != nil {
		t.Fatal(err)
	}
	if len(dashboards) == 0 {
		t.Fatal("no dashboards")
	}
	doc := operationsDoc(t)
	uids := map[string]bool{}
	for _, d := range dashboards {
		if d.UID == "" || uids[d.UID] {
			t.Errorf("%s: uid %q empty or not unique", d.File, d.UID)
		}
		uids[d.UID] = true
		if !strings.Contains(doc, "deploy/monitoring/dashboards/"+d.File) {
			t.Errorf("docs/operations.md does not list the dashboard %s", d.File)
		}
		queries := 0
		for _, p := range d.Panels {
			if p.Type == "row" {
				continue
			}
			if p.Title == "" {
				t.Errorf("%s: a panel without a title", d.File)
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no query", d.File, p.Title)
			}
			for _, target := range p.Targets {
				queries++
				series, err := monitoring.Series(target.Expr)
				if err != nil {
					t.Errorf("%s: panel %q: %q does not parse: %v", d.File, p.Title, target.Expr, err)
				} else if len(series) == 0 {
					t.Errorf("%s: panel %q: %q reads no series", d.File, p.Title, target.Expr)
				}
			}
		}
		if queries == 0 {
			t.Errorf("%s has no queries", d.File)
		}
	}
}

func TestSeries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`sum(rate(a_total{x="y"}[5m])) / sum(rate(b_total[5m]))`, []string{"a_total", "b_total"}},
		{`histogram_quantile(0.95, sum by (le) (rate(d_seconds_bucket[5m])))`, []string{"d_seconds_bucket"}},
		{`{__name__="c"} > 0`, []string{"c"}},
	} {
		got, err := monitoring.Series(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("Series(%s) = %v, want %v", tc.expr, got, tc.want)
		}
	}
	if _, err := monitoring.Series("sum(rate(x[5m])"); err == nil {
		t.Error("an unbalanced expression parsed")
	}
}
