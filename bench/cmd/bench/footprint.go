package main

import (
	"context"
	"fmt"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/footprint"
	"github.com/paylane/paylane/bench/internal/report"
	"github.com/paylane/paylane/deploy/supervisor"
)

// footprintRows is benchmark 5: the devstack's start time and memory, then
// every service's memory as its own process (measured by ownRows).
func (b *bench) footprintRows(_ context.Context, _ *baseline.Server) ([]report.Row, error) {
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
	return append(rows, b.ownMemory...), nil
}

// contextRow shows a run next to a baseline, without a target.
func contextRow(name string, r, base measured) report.Row {
	return report.Row{
		Benchmark: name, Figure: summary(r), Baseline: summary(base),
		Ratio: ratios(r, base), Target: "-", Verdict: report.Info,
	}
}

// services are the processes ownRows runs, under one supervisor.
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

// resetPeaks starts a new peak RSS for every process (see peaks).
func (s *services) resetPeaks() error {
	for _, p := range s.list {
		if err := footprint.ResetPeakRSS(p.PID()); err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	return nil
}

// peaks is every process's peak RSS since resetPeaks.
func (s *services) peaks() ([]int64, error) {
	out := make([]int64, len(s.list))
	for i, p := range s.list {
		n, err := footprint.PeakRSS(p.PID())
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
