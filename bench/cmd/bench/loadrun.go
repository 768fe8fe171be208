package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/paylane/paylane/bench/internal/load"
)

// loadRun runs the load generator with the run's connections, warm-up and
// window, and logs the outcome.
func (b *bench) loadRun(ctx context.Context, name string, expect int, req load.Request) (load.Result, error) {
	return b.loadRunFor(ctx, name, expect, b.cfg.duration, req)
}

// loadRunFor is loadRun with another measured window.
func (b *bench) loadRunFor(ctx context.Context, name string, expect int, window time.Duration, req load.Request) (load.Result, error) {
	b.logf("%s: %d connections, %s warm-up, %s measured", name, b.cfg.conns, b.cfg.warmup, window)
	res, err := load.Run(ctx, load.Options{
		Client: b.client, Workers: b.cfg.conns, Warmup: b.cfg.warmup, Duration: window,
		Request: req, Expect: expect,
	})
	if err != nil {
		return load.Result{}, fmt.Errorf("%s: %w", name, err)
	}
	b.logf("%s: %s", name, summary(res))
	return res, nil
}

// summary is a result as the table shows it.
func summary(r load.Result) string {
	s := fmt.Sprintf("%.0f req/s, p50 %.1f ms, p99 %.1f ms", r.PerSecond(),
		ms(r.Percentile(50)), ms(r.Percentile(99)))
	if f := r.Failures(); f > 0 {
		s += fmt.Sprintf(", %d failed (%s)", f, statuses(r.Statuses))
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
