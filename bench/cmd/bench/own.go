package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/bench/internal/report"
)

// Targets of the headline rows: benchmarks 1 and 2 with every service and
// the gateway as a process of its own, as deployed.
const (
	readMinRatio  = 0.50
	readMaxP99    = 15 * time.Millisecond
	writeMinRatio = 0.40
	// maxIdleRSS and maxReadRSS are benchmark 5's targets per service: idle,
	// and the peak under benchmark 1's reads.
	maxIdleRSS = 40 << 20
	maxReadRSS = 100 << 20
)

// ownRows are the headline benchmarks: the services and the gateway each
// run as a process of their own (under deploy/supervisor, as in production),
// benchmark 1's reads and benchmark 2's writes through them, each
// alternated with its baseline (see alternate). Their memory (idle, and the
// peak under the reads) becomes benchmark 5's per-service rows.
func (b *bench) ownRows(ctx context.Context, base *baseline.Server) ([]report.Row, error) {
	procs, err := b.launchServices(ctx)
	if err != nil {
		return nil, fmt.Errorf("services as own processes: %w", err)
	}
	defer procs.stop(b)
	for _, p := range procs.list {
		b.ownPIDs = append(b.ownPIDs, p.PID())
		b.ownNames = append(b.ownNames, p.Name)
	}
	defer func() { b.ownPIDs, b.ownNames = nil, nil }()
	time.Sleep(settle)
	mem := ownMemory{}
	if mem.idle, err = procs.rss(); err != nil {
		return nil, err
	}
	var rows []report.Row
	if b.cfg.selected("read") {
		if err := procs.resetPeaks(); err != nil {
			return nil, err
		}
		row, err := b.ownRead(ctx, procs, base)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		if mem.peak, err = procs.peaks(); err != nil {
			return nil, err
		}
	}
	if b.cfg.selected("write") {
		row, err := b.ownWrite(ctx, procs, base)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	b.ownMemory = mem.rows(procs)
	return rows, nil
}

// ownRead is benchmark 1 through the own processes.
func (b *bench) ownRead(ctx context.Context, procs *services, base *baseline.Server) (report.Row, error) {
	product, bare, err := b.alternate(ctx, "read (own processes)", http.StatusOK,
		func() load.Request { return b.getRequest(procs.gatewayURL+"/api/v1/contacts/", true) },
		func() load.Request { return b.getRequest(base.URL+"/contacts/", false) },
		b.profileOwn(ctx, procs, "read"))
	if err != nil {
		return report.Row{}, err
	}
	b.readBaseline = bare
	p99 := product.Percentile(99)
	return report.Row{
		Benchmark: "1 read: GET /api/v1/contacts/{id}, services as own processes",
		Figure:    ownSummary(product, b.ownNames),
		Baseline:  summary(bare),
		Ratio:     ratios(product, bare),
		Target:    fmt.Sprintf("ratio ≥ %.2f, p99 ≤ %d ms", readMinRatio, readMaxP99.Milliseconds()),
		Verdict: report.Judge(product.Failures() == 0, bare.PerSecond() > 0,
			product.PerSecond() >= readMinRatio*bare.PerSecond(), p99 <= readMaxP99),
	}, nil
}

// ownWrite is benchmark 2 through the own processes.
func (b *bench) ownWrite(ctx context.Context, procs *services, base *baseline.Server) (report.Row, error) {
	product, bare, err := b.alternate(ctx, "write (own processes)", http.StatusCreated,
		func() load.Request { return b.postRequest(procs.gatewayURL+"/api/v1/contacts", true) },
		func() load.Request { return b.postRequest(base.URL+"/contacts", false) },
		b.profileOwn(ctx, procs, "write"))
	if err != nil {
		return report.Row{}, err
	}
	// The writes added thousands of contacts: refresh the statistics as
	// autovacuum would, before later reads.
	if err := b.env.Analyze(ctx, "contacts", baseline.Database); err != nil {
		return report.Row{}, err
	}
	b.writeBaseline = bare
	return report.Row{
		Benchmark: "2 write: POST /api/v1/contacts, services as own processes",
		Figure:    ownSummary(product, b.ownNames),
		Baseline:  summary(bare),
		Ratio:     ratios(product, bare),
		Target:    fmt.Sprintf("ratio ≥ %.2f", writeMinRatio),
		Verdict: report.Judge(product.Failures() == 0, bare.PerSecond() > 0,
			product.PerSecond() >= writeMinRatio*bare.PerSecond()),
	}, nil
}

// profileOwn starts a CPU profile of every own process
// (own-<name>-<service>.pprof) over the first product run of alternate when
// -profile is set, and returns what waits for them.
func (b *bench) profileOwn(ctx context.Context, procs *services, name string) func() error {
	seconds := int((b.cfg.warmup + b.cfg.duration/time.Duration(b.cfg.rounds)).Seconds())
	var profiles []<-chan error
	for _, p := range procs.list {
		profiles = append(profiles, b.profile(ctx, p.Internal, "own-"+name+"-"+p.Name, seconds))
	}
	return func() error {
		var err error
		for _, done := range profiles {
			if perr := <-done; perr != nil && err == nil {
				err = perr
			}
		}
		return err
	}
}

// ownMemory is the own processes' resident memory: idle, and the peak
// under the reads (nil when they did not run).
type ownMemory struct{ idle, peak []int64 }

// rows are benchmark 5's per-service rows.
func (m ownMemory) rows(procs *services) []report.Row {
	var rows []report.Row
	for i, p := range procs.list {
		figure := "idle " + report.MB(m.idle[i]) + ", reads not run"
		ok := m.idle[i] <= maxIdleRSS
		if m.peak != nil {
			figure = fmt.Sprintf("idle %s, peak under reads %s", report.MB(m.idle[i]), report.MB(m.peak[i]))
			ok = ok && m.peak[i] <= maxReadRSS
		}
		rows = append(rows, report.Row{
			Benchmark: "5 " + p.Name + " RSS (own process)",
			Figure:    figure, Baseline: "-", Ratio: "-", Target: "≤ 40 MB idle, ≤ 100 MB under reads",
			Verdict: report.Judge(ok),
		})
	}
	return rows
}
