// Package monitoring holds what operators load into Prometheus and Grafana:
// the alerting rules (alerts.yaml) and the dashboards (dashboards/*.json),
// embedded so tests can check every query against the rules' syntax and
// against the series the services actually expose.
package monitoring

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

//go:embed alerts.yaml dashboards/*.json
var files embed.FS

// Query is one PromQL expression and where it is used.
type Query struct {
	// Where names the alert ("alert PaylaneHigh5xxRatio") or the dashboard
	// panel ("paylane-overview.json: Requests per second by service").
	Where string
	Expr  string
}

// newParser is the PromQL parser Prometheus uses by default.
func newParser() parser.Parser { return parser.NewParser(parser.Options{}) }

// Rules parses alerts.yaml as Prometheus does (unknown fields refused,
// every expression and template checked).
func Rules() (*rulefmt.RuleGroups, error) {
	raw, err := files.ReadFile("alerts.yaml")
	if err != nil {
		return nil, err
	}
	groups, errs := rulefmt.Parse(raw, false, model.UTF8Validation, newParser(), nil)
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return nil, fmt.Errorf("alerts.yaml: %s", strings.Join(msgs, "; "))
	}
	return groups, nil
}

// Dashboard is the part of a Grafana dashboard the checks read.
type Dashboard struct {
	File   string
	UID    string  `json:"uid"`
	Title  string  `json:"title"`
	Panels []Panel `json:"panels"`
}

// Panel is a dashboard panel; rows carry no targets.
type Panel struct {
	Type    string `json:"type"`
	Title   string `json:"title"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// Dashboards returns every dashboard under dashboards/, by file name.
func Dashboards() ([]Dashboard, error) {
	names, err := fs.Glob(files, "dashboards/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Dashboard
	for _, name := range names {
		raw, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var d Dashboard
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		d.File = path.Base(name)
		out = append(out, d)
	}
	return out, nil
}

// Queries returns every expression of the alerts and the dashboards.
func Queries() ([]Query, error) {
	groups, err := Rules()
	if err != nil {
		return nil, err
	}
	var out []Query
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			out = append(out, Query{Where: "alert " + r.Alert, Expr: r.Expr})
		}
	}
	dashboards, err := Dashboards()
	if err != nil {
		return nil, err
	}
	for _, d := range dashboards {
		for _, p := range d.Panels {
			for _, t := range p.Targets {
				out = append(out, Query{Where: d.File + ": " + p.Title, Expr: t.Expr})
			}
		}
	}
	return out, nil
}

// Series returns the metric names expr selects (a histogram's _bucket,
// _sum and _count as written), or the parse error.
func Series(expr string) ([]string, error) {
	e, err := newParser().ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := vs.Name
		for _, m := range vs.LabelMatchers {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				name = m.Value
			}
		}
		if name != "" {
			seen[name] = true
		}
		return nil
	})
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	return out, nil
}
