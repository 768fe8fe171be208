package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/paylane/paylane/bench/internal/footprint"
	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/bench/internal/report"
)

// measured is a load run plus the CPU time this process, the Postgres
// server and the services run as own processes used during its window.
type measured struct {
	load.Result
	CPU time.Duration
	// PostgresCPU is the Postgres server's share of CPU.
	PostgresCPU time.Duration
	// OwnCPU is each own process's share (bench.ownNames), when they run.
	OwnCPU []time.Duration
}

// CPUPerRequest is the CPU time per successful request.
func (m measured) CPUPerRequest() time.Duration {
	if m.OK == 0 {
		return 0
	}
	return m.CPU / time.Duration(m.OK)
}

// PostgresCPUPerRequest is Postgres's CPU time per successful request.
func (m measured) PostgresCPUPerRequest() time.Duration {
	if m.OK == 0 {
		return 0
	}
	return m.PostgresCPU / time.Duration(m.OK)
}

// loadRun runs the load generator with the run's connections, warm-up and
// window, and logs the outcome.
func (b *bench) loadRun(ctx context.Context, name string, expect int, req load.Request) (measured, error) {
	return b.loadRunFor(ctx, name, expect, req, b.cfg.duration)
}

// loadRunFor is loadRun with a measured window of d.
func (b *bench) loadRunFor(ctx context.Context, name string, expect int, req load.Request, d time.Duration) (measured, error) {
	return b.loadRunWith(ctx, name, expect, req, b.cfg.conns, d)
}

// loadRunWith is loadRun with conns connections and a measured window of d.
func (b *bench) loadRunWith(ctx context.Context, name string, expect int, req load.Request, conns int, d time.Duration) (measured, error) {
	b.logf("%s: %d connections, %s warm-up, %s measured", name, conns, b.cfg.warmup, d)
	var (
		m      measured
		cpuErr error
	)
	res, err := load.Run(ctx, load.Options{
		Client: b.client, Workers: conns, Warmup: b.cfg.warmup, Duration: d,
		Request: req, Expect: expect,
		Window: func() func() {
			start, startPG, startOwn, err := b.cpu()
			return func() {
				end, endPG, endOwn, err2 := b.cpu()
				m.CPU, m.PostgresCPU, cpuErr = end-start, endPG-startPG, errors.Join(err, err2)
				for i := range min(len(startOwn), len(endOwn)) {
					m.OwnCPU = append(m.OwnCPU, max(endOwn[i]-startOwn[i], 0))
				}
			}
		},
	})
	if err = errors.Join(err, cpuErr); err != nil {
		return measured{}, fmt.Errorf("%s: %w", name, err)
	}
	m.Result = res
	b.logf("%s: %s", name, ownSummary(m, b.ownNames))
	return m, nil
}

// cpu is the CPU time used so far by this process, the Postgres server and
// its backends, and the services running as own processes; by Postgres
// alone; and by each own process (in the order of b.ownPIDs).
func (b *bench) cpu() (all, postgres time.Duration, own []time.Duration, err error) {
	others, err := footprint.TreeCPU([]int{os.Getpid()}, nil)
	if err != nil {
		return 0, 0, nil, err
	}
	for _, pid := range b.ownPIDs {
		// A process that exited (the supervisor restarts a crashed one
		// under a new pid) counts nothing, as TreeCPU skips it.
		t, _ := footprint.CPUTime(pid)
		own = append(own, t)
		others += t
	}
	postgres, err = footprint.TreeCPU(nil, []int{b.env.PostmasterPID})
	return others + postgres, postgres, own, err
}

// alternate measures the product and its baseline in turns: -rounds pairs
// of runs, each window a -rounds-th of -duration, product first. On a shared
// machine whose other load drifts over minutes, both then see the same
// conditions, and the ratio of the merged runs moves far less between
// invocations than that of one long run of each. Each run gets its own
// requests (product and base are called per run: fresh idempotency keys).
// after, when set, runs after the first product run (the window a profile
// covers).
func (b *bench) alternate(ctx context.Context, name string, expect int, product, base func() load.Request, after func() error) (p, bare measured, err error) {
	rounds := b.cfg.rounds
	window := b.cfg.duration / time.Duration(rounds)
	var ps, bs []measured
	for i := range rounds {
		m, err := b.loadRunFor(ctx, fmt.Sprintf("%s via the gateway (%d/%d)", name, i+1, rounds), expect, product(), window)
		if err != nil {
			return measured{}, measured{}, err
		}
		ps = append(ps, m)
		if i == 0 && after != nil {
			if err := after(); err != nil {
				return measured{}, measured{}, err
			}
		}
		m, err = b.loadRunFor(ctx, fmt.Sprintf("%s baseline (%d/%d)", name, i+1, rounds), expect, base(), window)
		if err != nil {
			return measured{}, measured{}, err
		}
		bs = append(bs, m)
	}
	p, bare = mergeMeasured(ps), mergeMeasured(bs)
	b.logf("%s via the gateway, %d rounds: %s", name, rounds, ownSummary(p, b.ownNames))
	b.logf("%s baseline, %d rounds: %s", name, rounds, summary(bare))
	return p, bare, nil
}

// mergeMeasured adds up runs of the same load (see load.Merge).
func mergeMeasured(ms []measured) measured {
	var out measured
	results := make([]load.Result, len(ms))
	for i, m := range ms {
		results[i] = m.Result
		out.CPU += m.CPU
		out.PostgresCPU += m.PostgresCPU
		if out.OwnCPU == nil {
			out.OwnCPU = make([]time.Duration, len(m.OwnCPU))
		}
		for j := range min(len(out.OwnCPU), len(m.OwnCPU)) {
			out.OwnCPU[j] += m.OwnCPU[j]
		}
	}
	out.Result = load.Merge(results...)
	return out
}

// ratios is the ratio of the throughputs and, in parentheses, of the CPU
// costs (baseline CPU per request over the product's): what the throughput
// ratio would be on a machine whose CPU the run had to itself.
func ratios(product, base measured) string {
	r := report.Ratio(product.PerSecond(), base.PerSecond())
	if cpu := product.CPUPerRequest(); cpu > 0 && base.CPUPerRequest() > 0 {
		r += " (CPU " + report.Ratio(float64(base.CPUPerRequest()), float64(cpu)) + ")"
	}
	return r
}

// ownSummary is summary with the CPU per request of the own processes that
// used at least 0.01 ms a request (names are b.ownNames).
func ownSummary(m measured, names []string) string {
	s := summary(m)
	if m.OK == 0 {
		return s
	}
	var parts []string
	for i, t := range m.OwnCPU {
		if perReq := ms(t / time.Duration(m.OK)); i < len(names) && perReq >= 0.01 {
			parts = append(parts, fmt.Sprintf("%s %.2f", names[i], perReq))
		}
	}
	if len(parts) > 0 {
		s += "; own processes ms/req: " + strings.Join(parts, ", ")
	}
	return s
}

// summary is a result as the table shows it.
func summary(m measured) string {
	s := fmt.Sprintf("%.0f req/s, p50 %.1f ms, p99 %.1f ms, CPU %.2f ms/req (Postgres %.2f)", m.PerSecond(),
		ms(m.Percentile(50)), ms(m.Percentile(99)), ms(m.CPUPerRequest()), ms(m.PostgresCPUPerRequest()))
	if f := m.Failures(); f > 0 {
		s += fmt.Sprintf(", %d failed (%s)", f, statuses(m.Statuses))
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// statuses lists failure counts by status ("429×3 error×1").
func statuses(m map[int]int) string {
	codes := make([]int, 0, len(m))
	for c := range m {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		name := fmt.Sprint(c)
		if c == 0 {
			name = "error"
		}
		parts[i] = fmt.Sprintf("%s×%d", name, m[c])
	}
	return strings.Join(parts, " ")
}

// getRequest returns a load.Request for GET prefix+<a seeded contact id>,
// authenticated when auth; workers walk the ids from different offsets.
func (b *bench) getRequest(prefix string, auth bool) load.Request {
	ids := b.contactIDs
	token := ""
	if auth {
		token = b.env.DemoToken
	}
	return func(ctx context.Context, worker int, seq uint64) (*http.Request, error) {
		id := ids[(uint64(worker)*7919+seq)%uint64(len(ids))]
		return newRequest(ctx, http.MethodGet, prefix+id, nil, token, "")
	}
}

// profile fetches a CPU profile of seconds from the internal listener addr
// into dir/name.pprof when -profile is set; the returned channel reports
// when it is written (nil immediately when profiling is off).
func (b *bench) profile(ctx context.Context, addr, name string, seconds int) <-chan error {
	done := make(chan error, 1)
	if b.cfg.profileDir == "" || addr == "" {
		done <- nil
		return done
	}
	go func() { done <- fetchProfile(ctx, addr, filepath.Join(b.cfg.profileDir, name+".pprof"), seconds) }()
	return done
}

func fetchProfile(ctx context.Context, addr, path string, seconds int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating the profile directory: %w", err)
	}
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, seconds)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("fetching a profile from %s: %w", addr, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching a profile from %s: status %d", addr, resp.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
