package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/footprint"
	"github.com/paylane/paylane/bench/internal/report"
)

// maxIdleRSS is the target of benchmark 5, per service.
const maxIdleRSS = 40 << 20

// footprintRows is benchmark 5: the devstack's start time and memory, then
// every service as its own process (idle, and after a read run through
// them, with the same load as benchmark 1).
func (b *bench) footprintRows(ctx context.Context, _ *baseline.Server) ([]report.Row, error) {
	rows := []report.Row{
		{
			Benchmark: "5 devstack start → ready (fresh root: initdb, migrations, demo tenant)",
			Figure:    report.Seconds(b.env.StartedIn), Baseline: "-", Ratio: "-", Target: "-", Verdict: report.Info,
		},
		{
			Benchmark: "5 devstack process RSS (all services + this harness in one process)",
			Figure:    fmt.Sprintf("idle %s, after benchmark 1 %s", report.MB(b.idleRSS), report.MB(b.readRSS)),
			Baseline:  "-", Ratio: "-", Target: "-", Verdict: report.Info,
		},
	}
	if !b.cfg.footprint {
		return append(rows, report.Row{
			Benchmark: "5 RSS per service (own processes)", Figure: "skipped (-footprint=false)",
			Baseline: "-", Ratio: "-", Target: "≤ 40 MB idle each", Verdict: report.NA,
		}), nil
	}
	own, err := b.ownProcesses(ctx)
	if err != nil {
		return nil, fmt.Errorf("services as own processes: %w", err)
	}
	return append(rows, own...), nil
}

// ownProcesses builds and starts identity-svc, contacts-svc and the gateway
// as processes of their own, reads their memory idle, sends benchmark 1's
// reads through them, reads it again and stops them.
func (b *bench) ownProcesses(ctx context.Context) ([]report.Row, error) {
	procs, err := b.launchServices(ctx)
	if err != nil {
		return nil, err
	}
	defer procs.stop(b)
	time.Sleep(settle)
	idle, err := procs.rss()
	if err != nil {
		return nil, err
	}
	seconds := int((b.cfg.warmup + b.cfg.duration).Seconds())
	var profiles []<-chan error
	for _, p := range procs.list {
		profiles = append(profiles, b.profile(ctx, p.Internal, p.Name, seconds))
	}
	res, err := b.loadRun(ctx, "read via own processes", http.StatusOK, b.getRequest(procs.gatewayURL+"/api/v1/contacts/", true))
	if err != nil {
		return nil, err
	}
	for _, done := range profiles {
		if err := <-done; err != nil {
			return nil, err
		}
	}
	after, err := procs.rss()
	if err != nil {
		return nil, err
	}
	rows := []report.Row{{
		Benchmark: "1 read, services as own processes (context)",
		Figure:    summary(res), Baseline: summary(b.readBaseline),
		Ratio:  report.Ratio(res.PerSecond(), b.readBaseline.PerSecond()),
		Target: "-", Verdict: report.Info,
	}}
	for i, p := range procs.list {
		rows = append(rows, report.Row{
			Benchmark: "5 " + p.Name + " RSS (own process)",
			Figure:    fmt.Sprintf("idle %s, after reads %s", report.MB(idle[i]), report.MB(after[i])),
			Baseline:  "-", Ratio: "-", Target: "≤ 40 MB idle",
			Verdict: report.Judge(idle[i] <= maxIdleRSS),
		})
	}
	return rows, nil
}

// services are the processes ownProcesses runs.
type services struct {
	list       []*footprint.Proc
	gatewayURL string
}

func (s *services) rss() ([]int64, error) {
	out := make([]int64, len(s.list))
	for i, p := range s.list {
		n, err := p.RSS()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		out[i] = n
	}
	return out, nil
}

// stop stops the processes, the gateway first.
func (s *services) stop(b *bench) {
	for i := len(s.list) - 1; i >= 0; i-- {
		if err := s.list[i].Stop(); err != nil {
			b.logf("%v", err)
		}
	}
}
