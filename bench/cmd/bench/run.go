package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/paylane/paylane/bench/internal/baseline"
	"github.com/paylane/paylane/bench/internal/footprint"
	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/bench/internal/report"
	"github.com/paylane/paylane/bench/internal/stack"
)

// settle is how long the stack idles before its memory is read.
const settle = 3 * time.Second

// bench is one run: the stack, the client and what the benchmarks share.
type bench struct {
	cfg      config
	root     string
	env      *stack.Env
	client   *http.Client
	phones   *phones
	progress io.Writer
	// contactIDs are the contacts the read benchmark reads.
	contactIDs []string
	// idleRSS and readRSS are the whole process's memory idle and after
	// benchmark 1.
	idleRSS, readRSS int64
	// ownPIDs and ownNames are the services running as own processes, if
	// any.
	ownPIDs  []int
	ownNames []string
	// ownMemory are the per-service memory rows of the own processes,
	// printed by benchmark 5.
	ownMemory []report.Row
	// readBaseline is benchmark 1's baseline, the reference of later reads.
	readBaseline measured
	// writeBaseline is benchmark 2's baseline.
	writeBaseline measured
}

// output is what a run prints: the table of the benchmarks against their
// baselines, and the tables of their own (data growth).
type output struct {
	rows   []report.Row
	tables []report.Table
}

// print writes the tables that have rows.
func (o output) print(w io.Writer) error {
	if len(o.rows) > 0 {
		fmt.Fprintln(w)
		if err := report.Print(w, o.rows); err != nil {
			return err
		}
	}
	for _, t := range o.tables {
		fmt.Fprintln(w)
		if err := report.PrintTable(w, t); err != nil {
			return err
		}
	}
	return nil
}

// run starts the stack, runs every benchmark and returns the tables.
// The temporary root is removed afterwards unless -keep is set or the run
// failed (its logs tell why).
func run(ctx context.Context, cfg config) (out output, err error) {
	root, err := os.MkdirTemp("", "paylane-bench-")
	if err != nil {
		return output{}, fmt.Errorf("creating the devstack root: %w", err)
	}
	b := &bench{cfg: cfg, root: root, phones: newPhones(), progress: os.Stderr}
	defer func() {
		if cfg.keep || err != nil {
			b.logf("devstack root kept in %s", root)
			return
		}
		os.RemoveAll(root)
	}()
	st, err := b.startStack(ctx, root)
	if err != nil {
		return output{}, err
	}
	defer func() {
		b.logf("stopping the devstack")
		if err := st.Stop(); err != nil {
			b.logf("devstack stopped with: %v", err)
		}
	}()
	return b.all(ctx)
}

// startStack starts the devstack with its progress in root/devstack.log
// (and on stderr with -v) and the services' logs in root/services.log.
func (b *bench) startStack(ctx context.Context, root string) (*stack.Stack, error) {
	devLog, err := os.Create(filepath.Join(root, "devstack.log"))
	if err != nil {
		return nil, fmt.Errorf("creating the devstack log: %w", err)
	}
	svcLog, err := os.Create(filepath.Join(root, "services.log"))
	if err != nil {
		return nil, fmt.Errorf("creating the services' log: %w", err)
	}
	var progress io.Writer = devLog
	if b.cfg.verbose {
		progress = io.MultiWriter(devLog, os.Stderr)
	}
	if n := b.cfg.whatifIdleConns; n > 0 {
		// A what-if on this process's shared transport: services whose
		// clients use net/http's DefaultTransport keep n idle connections
		// per upstream instead of 2.
		http.DefaultTransport.(*http.Transport).MaxIdleConnsPerHost = n
		b.logf("what-if: DefaultTransport keeps %d idle connections per host", n)
	}
	b.logf("starting the devstack in %s", root)
	st, err := stack.Start(ctx, root, progress, svcLog)
	if err != nil {
		return nil, fmt.Errorf("starting the devstack (log: %s): %w", devLog.Name(), err)
	}
	b.env = st.Env
	b.logf("devstack ready in %s: gateway %s", st.Env.StartedIn.Round(time.Millisecond), st.Env.GatewayURL)
	if b.client, err = load.NewClient(st.Env.CAFile, b.cfg.conns); err != nil {
		_ = st.Stop()
		return nil, err
	}
	return st, nil
}

// all runs the benchmarks in order and collects their tables.
func (b *bench) all(ctx context.Context) (output, error) {
	var out output
	if b.againstBaseline() {
		rows, err := b.againstBaselineRows(ctx)
		if err != nil {
			return output{}, err
		}
		out.rows = rows
	}
	if b.cfg.selected("scale") {
		t, err := b.scaleRows(ctx)
		if err != nil {
			return output{}, err
		}
		out.tables = append(out.tables, t)
	}
	return out, nil
}

// againstBaseline reports whether a benchmark of the baseline table runs.
func (b *bench) againstBaseline() bool {
	for _, s := range b.steps() {
		if b.cfg.runs(s.name) {
			return true
		}
	}
	return false
}

// againstBaselineRows prepares the demo tenant and the baseline, runs the
// benchmarks of the baseline table in order and collects their rows.
func (b *bench) againstBaselineRows(ctx context.Context) ([]report.Row, error) {
	time.Sleep(settle)
	idle, err := footprint.SelfRSS()
	if err != nil {
		return nil, err
	}
	b.idleRSS = idle
	if err := b.raiseLimit(ctx); err != nil {
		return nil, err
	}
	if err := b.seed(ctx); err != nil {
		return nil, err
	}
	if err := b.env.Analyze(ctx, "contacts"); err != nil {
		return nil, err
	}
	base, err := b.startBaseline(ctx)
	if err != nil {
		return nil, err
	}
	defer base.Stop()
	var rows []report.Row
	for _, step := range b.steps() {
		if !b.cfg.runs(step.name) {
			continue
		}
		r, err := step.run(ctx, base)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// step is one benchmark, by its -only name; own runs when any of read,
// write and footprint does.
type step struct {
	name string
	run  func(context.Context, *baseline.Server) ([]report.Row, error)
}

// steps are the benchmarks in the order they run: the headline rows first
// (the services as own processes, as deployed), then the same loads with
// every service in the devstack's one process (context).
func (b *bench) steps() []step {
	return []step{
		{"own", b.ownRows},
		{"read", b.readRows}, {"write", b.writeRows}, {"batch", b.batchRows},
		{"webhooks", b.webhookRows}, {"footprint", b.footprintRows},
	}
}

// startBaseline prepares the bench database and starts the bare server.
func (b *bench) startBaseline(ctx context.Context) (*baseline.Server, error) {
	benchDSN := b.env.SuperuserDSN(baseline.Database)
	if err := baseline.Prepare(ctx, b.env.SuperuserDSN("postgres"), benchDSN); err != nil {
		return nil, fmt.Errorf("preparing the baseline: %w", err)
	}
	opts := baseline.Options{
		ReadDSN: b.env.SuperuserDSN("contacts"), WriteDSN: benchDSN, TenantID: b.env.DemoTenantID,
		MaxConns: serviceDBConns, CertFile: b.env.CertFile, KeyFile: b.env.KeyFile,
	}
	if b.cfg.whatifPipeline {
		dsn, err := b.loginRole(ctx, "bench_shape", "contacts")
		if err != nil {
			return nil, err
		}
		opts.ShapeDSN = dsn
	}
	return baseline.Start(ctx, opts)
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.progress, "bench: "+format+"\n", args...)
}
