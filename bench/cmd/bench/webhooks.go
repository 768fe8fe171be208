package main

import (
	"context"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/report"
)

// webhookRows is benchmark 4: 10,000 contact events fanned out to one local
// HTTPS receiver, deliveries per second and the p99 from the event's commit
// to its receipt. It needs webhook-svc in the devstack (a "webhook" row in
// deploy/devstack's service table, with its route and a trust store that
// lets it deliver to a loopback receiver); until then the row is n/a.
func (b *bench) webhookRows(context.Context, *baseline.Server) ([]report.Row, error) {
	figure := "n/a (webhook-svc not in the devstack yet)"
	if _, ok := b.env.Services["webhook"]; ok {
		figure = "n/a (webhook-svc is in the devstack; its benchmark is not written yet)"
	}
	return []report.Row{{
		Benchmark: "4 webhooks: 10,000 contact events → 1 HTTPS receiver",
		Figure:    figure, Baseline: "-", Ratio: "-",
		Target: "≥ 1,000 deliveries/s, p99 commit → receipt ≤ 1 s", Verdict: report.NA,
	}}, nil
}
