package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/footprint"
	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/bench/internal/report"
	"github.com/paylane/paylane/deploy/supervisor"
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
			Figure:    processRSS(b.idleRSS, b.readRSS),
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
// reads and then benchmark 2's writes through them, reads their memory
// after the reads, and stops them.
func (b *bench) ownProcesses(ctx context.Context) ([]report.Row, error) {
	procs, err := b.launchServices(ctx)
	if err != nil {
		return nil, err
	}
	defer procs.stop(b)
	for _, p := range procs.list {
		b.ownPIDs = append(b.ownPIDs, p.PID())
	}
	defer func() { b.ownPIDs = nil }()
	time.Sleep(settle)
	idle, err := procs.rss()
	if err != nil {
		return nil, err
	}
	read, err := b.ownRun(ctx, procs, "read", http.StatusOK, b.getRequest(procs.gatewayURL+"/api/v1/contacts/", true))
	if err != nil {
		return nil, err
	}
	after, err := procs.rss()
	if err != nil {
		return nil, err
	}
	write, err := b.ownRun(ctx, procs, "write", http.StatusCreated, b.postRequest(procs.gatewayURL+"/api/v1/contacts", true))
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("services as own processes, DB_MAX_CONNS=%d (context)", b.cfg.dbConns)
	rows := []report.Row{
		contextRow("1 read, "+label, read, b.readBaseline),
		contextRow("2 write, "+label, write, b.writeBaseline),
	}
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

// ownRun runs load through the own processes, profiling each of them
// (own-<name>-<service>.pprof) when -profile is set.
func (b *bench) ownRun(ctx context.Context, procs *services, name string, expect int, req load.Request) (measured, error) {
	seconds := int((b.cfg.warmup + b.cfg.duration).Seconds())
	var profiles []<-chan error
	for _, p := range procs.list {
		profiles = append(profiles, b.profile(ctx, p.Internal, "own-"+name+"-"+p.Name, seconds))
	}
	res, err := b.loadRun(ctx, name+" via own processes", expect, req)
	for _, done := range profiles {
		if perr := <-done; perr != nil && err == nil {
			err = perr
		}
	}
	return res, err
}

// contextRow shows a run next to a baseline, without a target.
func contextRow(name string, r, base measured) report.Row {
	return report.Row{
		Benchmark: name, Figure: summary(r), Baseline: summary(base),
		Ratio: ratios(r, base), Target: "-", Verdict: report.Info,
	}
}

// services are the processes ownProcesses runs, under one supervisor.
type services struct {
	list       []ownProc
	sup        *supervisor.Supervisor
	gatewayURL string
}

// ownProc is one of them.
type ownProc struct {
	Name string
	// Internal is its internal listener (/readyz, /debug/pprof).
	Internal string
	sup      *supervisor.Supervisor
}

// PID is the current process's id.
func (p ownProc) PID() int { return p.sup.PID(p.Name) }

// RSS is the process's resident set size in bytes.
func (p ownProc) RSS() (int64, error) { return footprint.RSS(p.PID()) }

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
func (s *services) stop(*bench) { s.sup.Stop() }

// processRSS is the devstack process's memory idle and after benchmark 1
// (when it ran).
func processRSS(idle, afterRead int64) string {
	if afterRead == 0 {
		return "idle " + report.MB(idle) + ", benchmark 1 not run"
	}
	return fmt.Sprintf("idle %s, after benchmark 1 %s", report.MB(idle), report.MB(afterRead))
}
