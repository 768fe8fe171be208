package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/bench/internal/report"
	"github.com/paylane/paylane/libs/ids"
)

// writeRows is benchmark 2 with every service in the devstack's one
// process (context): POST /api/v1/contacts with a fresh Idempotency-Key and
// phone number each request, next to the baseline of the headline row.
func (b *bench) writeRows(ctx context.Context, base *baseline.Server) ([]report.Row, error) {
	seconds := int((b.cfg.warmup + b.cfg.duration).Seconds())
	profiled := b.profile(ctx, b.env.Internal["gateway"], "devstack-write", seconds)
	product, err := b.loadRun(ctx, "write via the devstack's gateway", http.StatusCreated,
		b.postRequest(b.env.GatewayURL+"/api/v1/contacts", true))
	if err != nil {
		return nil, err
	}
	if err := <-profiled; err != nil {
		return nil, err
	}
	// The writes added thousands of contacts: refresh the statistics as
	// autovacuum would, before later reads.
	if err := b.env.Analyze(ctx, "contacts", baseline.Database); err != nil {
		return nil, err
	}
	whatif, err := b.pipelineRows(ctx, base)
	if err != nil {
		return nil, err
	}
	return append([]report.Row{contextRow("2 write, every service in one process (devstack; context)", product, b.writeBaseline)},
		whatif...), nil
}

// pipelineRows, with -whatif-pipeline, runs the POST's statements bare on
// the contacts tables one round trip each and pipelined (baseline/txshape.go).
func (b *bench) pipelineRows(ctx context.Context, base *baseline.Server) ([]report.Row, error) {
	if !b.cfg.whatifPipeline {
		return nil, nil
	}
	var rows []report.Row
	for _, shape := range []struct{ path, label string }{
		{"sequential", "12 round trips, as today"}, {"pipelined", "3 round trips"},
	} {
		m, err := b.loadRun(ctx, "what-if "+shape.path, http.StatusCreated, b.postRequest(base.URL+"/tx/"+shape.path, false))
		if err != nil {
			return nil, err
		}
		rows = append(rows, contextRow("2 what-if: the POST's statements bare, "+shape.label, m, b.writeBaseline))
	}
	return rows, nil
}

// postRequest returns a load.Request creating a new contact at url; auth
// adds the demo token and a fresh Idempotency-Key.
func (b *bench) postRequest(url string, auth bool) load.Request {
	run := ids.New()
	token := ""
	if auth {
		token = b.env.DemoToken
	}
	return func(ctx context.Context, worker int, seq uint64) (*http.Request, error) {
		tag := fmt.Sprintf("w%d-%d", worker, seq)
		idem := ""
		if auth {
			idem = run + "-" + tag
		}
		return newRequest(ctx, http.MethodPost, url, b.contactBody(tag), token, idem)
	}
}
