package main

import (
	"context"
	"net/http"
	"time"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/footprint"
	"github.com/paylane/paylane/bench/internal/report"
)

// Targets of benchmark 1.
const (
	readMinRatio = 0.40
	readMaxP99   = 25 * time.Millisecond
)

// readRows is benchmark 1: GET /api/v1/contacts/{id} through the gateway
// against the baseline's GET /contacts/:id, then the process's memory.
func (b *bench) readRows(ctx context.Context, base *baseline.Server) ([]report.Row, error) {
	seconds := int((b.cfg.warmup + b.cfg.duration).Seconds())
	profiled := b.profile(ctx, b.env.Internal["gateway"], "devstack-read", seconds)
	product, err := b.loadRun(ctx, "read via the gateway", http.StatusOK, b.getRequest(b.env.GatewayURL+"/api/v1/contacts/", true))
	if err != nil {
		return nil, err
	}
	if err := <-profiled; err != nil {
		return nil, err
	}
	if b.readRSS, err = footprint.SelfRSS(); err != nil {
		return nil, err
	}
	bare, err := b.loadRun(ctx, "read baseline", http.StatusOK, b.getRequest(base.URL+"/contacts/", false))
	if err != nil {
		return nil, err
	}
	b.readBaseline = bare
	p99 := product.Percentile(99)
	return []report.Row{{
		Benchmark: "1 read: GET /api/v1/contacts/{id}",
		Figure:    summary(product),
		Baseline:  summary(bare),
		Ratio:     ratios(product, bare),
		Target:    "ratio ≥ 0.40, p99 ≤ 25 ms",
		Verdict: report.Judge(product.Failures() == 0, bare.PerSecond() > 0,
			product.PerSecond() >= readMinRatio*bare.PerSecond(), p99 <= readMaxP99),
	}}, nil
}
