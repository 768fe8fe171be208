package main

import (
	"context"
	"net/http"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/footprint"
	"github.com/paylane/paylane/bench/internal/report"
)

// readRows is benchmark 1 with every service in the devstack's one process
// (context): GET /api/v1/contacts/{id} through its gateway, next to the
// baseline of the headline row, then the process's memory.
func (b *bench) readRows(ctx context.Context, _ *baseline.Server) ([]report.Row, error) {
	seconds := int((b.cfg.warmup + b.cfg.duration).Seconds())
	profiled := b.profile(ctx, b.env.Internal["gateway"], "devstack-read", seconds)
	product, err := b.loadRun(ctx, "read via the devstack's gateway", http.StatusOK, b.getRequest(b.env.GatewayURL+"/api/v1/contacts/", true))
	if err != nil {
		return nil, err
	}
	if err := <-profiled; err != nil {
		return nil, err
	}
	if b.readRSS, err = footprint.SelfRSS(); err != nil {
		return nil, err
	}
	return []report.Row{contextRow("1 read, every service in one process (devstack; context)", product, b.readBaseline)}, nil
}
