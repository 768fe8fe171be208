package report

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPrintAlignsAMarkdownTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	err := Print(&b, []Row{
		{Benchmark: "read", Figure: "100 req/s", Baseline: "200 req/s", Ratio: "0.50", Target: "≥ 0.40", Verdict: Pass},
		{Benchmark: "batch", Figure: "n/a", Verdict: NA},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"| benchmark | figure    | baseline  | ratio | target | result |",
		"| --------- | --------- | --------- | ----- | ------ | ------ |",
		"| read      | 100 req/s | 200 req/s | 0.50  | ≥ 0.40 | pass   |",
		"| batch     | n/a       |           |       |        | n/a    |",
		"",
	}, "\n")
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestPrintTablePadsShortRows(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	err := PrintTable(&b, Table{Header: []string{"request", "p99", "result"}, Rows: [][]string{
		{"GET /contacts", "4.2 ms", "pass"},
		{"GET /receivables"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"| request          | p99    | result |",
		"| ---------------- | ------ | ------ |",
		"| GET /contacts    | 4.2 ms | pass   |",
		"| GET /receivables |        |        |",
		"",
	}, "\n")
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func TestJudgeFailsOnAnyMissedCondition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		conds []bool
		want  Verdict
	}{
		{"all met", []bool{true, true}, Pass},
		{"one missed", []bool{true, false}, Fail},
		{"nothing to check", nil, Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Judge(tt.conds...); got != tt.want {
				t.Errorf("Judge(%v) = %q, want %q", tt.conds, got, tt.want)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{Ms(1500 * time.Microsecond), "1.5 ms"},
		{Seconds(1234 * time.Millisecond), "1.23 s"},
		{MB(25 << 20), "25.0 MB"},
		{Ratio(1, 4), "0.25"},
		{Ratio(0.347, 1), "0.34"},
		{Ratio(0.35, 1), "0.35"},
		{Ratio(1, 0), "-"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
