// Package load is the benchmarks' HTTP load generator: a fixed number of
// workers, each with its own kept-alive connection, send requests back to
// back for a warm-up and then a measured window; every measured request's
// latency is kept, so percentiles are exact (nearest rank over the sorted
// samples), not bucketed.
package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Request builds the next request of a worker; seq counts the worker's
// requests from 0, so (worker, seq) is unique within a run.
type Request func(ctx context.Context, worker int, seq uint64) (*http.Request, error)

// Options describe one run.
type Options struct {
	// Client sends the requests; its transport should keep at least
	// Workers idle connections per host.
	Client *http.Client
	// Workers is the number of concurrent requests (connections).
	Workers int
	// Warmup is sent but not measured; Duration is the measured window.
	Warmup, Duration time.Duration
	// Request builds each request.
	Request Request
	// Expect is the status of a successful answer (200, 201, ...).
	Expect int
	// Window, when set, is called as the measured window opens; the
	// function it returns is called as the window closes (to measure
	// something else over exactly the window, such as CPU time).
	Window func() (closed func())
}

// Result is what a run measured: only requests that started after the
// warm-up and finished inside the window count.
type Result struct {
	// OK is the number of answers with the expected status.
	OK int
	// Statuses counts every other outcome by status; 0 is a transport error.
	Statuses map[int]int
	// Window is the measured duration.
	Window time.Duration
	// Latencies of the successful requests, sorted ascending.
	Latencies []time.Duration
}

// Failures is the number of measured requests that did not succeed.
func (r Result) Failures() int {
	n := 0
	for _, c := range r.Statuses {
		n += c
	}
	return n
}

// PerSecond is the rate of successful requests over the window.
func (r Result) PerSecond() float64 {
	if r.Window <= 0 {
		return 0
	}
	return float64(r.OK) / r.Window.Seconds()
}

// Percentile returns the nearest-rank percentile p (0 < p <= 100) of the
// successful requests' latencies, 0 when there are none.
func (r Result) Percentile(p float64) time.Duration {
	return Percentile(r.Latencies, p)
}

// Percentile returns the nearest-rank percentile p (0 < p <= 100) of sorted.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p * float64(n) / 100))
	return sorted[min(max(rank, 1), n)-1]
}

// worker is one worker's tally, merged at the end.
type worker struct {
	ok        int
	statuses  map[int]int
	latencies []time.Duration
}

// Run sends load as opts describe and returns what the window measured. It
// fails only when a request cannot be built (a harness error) or opts are
// invalid; failed requests are counted, not returned.
func Run(ctx context.Context, opts Options) (Result, error) {
	if opts.Client == nil || opts.Request == nil || opts.Workers < 1 || opts.Duration <= 0 {
		return Result{}, errors.New("load: client, request, workers and duration are required")
	}
	from := time.Now().Add(opts.Warmup)
	until := from.Add(opts.Duration)
	tallies := make([]worker, opts.Workers)
	errs := make([]error, opts.Workers)
	var wg sync.WaitGroup
	for i := range opts.Workers {
		wg.Go(func() { tallies[i], errs[i] = run(ctx, opts, i, from, until) })
	}
	if opts.Window != nil {
		wg.Go(func() {
			if sleepUntil(ctx, from) {
				closed := opts.Window()
				sleepUntil(ctx, until)
				closed()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	res := Result{Statuses: map[int]int{}, Window: opts.Duration}
	for _, t := range tallies {
		res.OK += t.ok
		res.Latencies = append(res.Latencies, t.latencies...)
		for s, c := range t.statuses {
			res.Statuses[s] += c
		}
	}
	slices.Sort(res.Latencies)
	return res, nil
}

// sleepUntil sleeps until t or ctx is done, and reports whether t came.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// run is one worker: requests back to back until the window ends.
func run(ctx context.Context, opts Options, id int, from, until time.Time) (worker, error) {
	w := worker{statuses: map[int]int{}, latencies: make([]time.Duration, 0, 4096)}
	for seq := uint64(0); ctx.Err() == nil; seq++ {
		if !time.Now().Before(until) {
			break
		}
		req, err := opts.Request(ctx, id, seq)
		if err != nil {
			return w, fmt.Errorf("building request: %w", err)
		}
		start := time.Now()
		status := send(opts.Client, req)
		end := time.Now()
		if start.Before(from) || end.After(until) {
			continue
		}
		if status == opts.Expect {
			w.ok++
			w.latencies = append(w.latencies, end.Sub(start))
		} else {
			w.statuses[status]++
		}
	}
	return w, nil
}

// send sends req, drains the answer so the connection is reused, and returns
// the status (0 on a transport error).
func send(c *http.Client, req *http.Request) int {
	resp, err := c.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// Merge combines the results of several runs of the same load into one: the
// counts and windows add up and the latencies merge (sorted), so rates and
// percentiles are those of all the windows together.
func Merge(rs ...Result) Result {
	out := Result{Statuses: map[int]int{}}
	for _, r := range rs {
		out.OK += r.OK
		out.Window += r.Window
		for status, n := range r.Statuses {
			out.Statuses[status] += n
		}
		out.Latencies = append(out.Latencies, r.Latencies...)
	}
	slices.Sort(out.Latencies)
	return out
}
