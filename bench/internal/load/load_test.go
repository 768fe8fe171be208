package load

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPercentileIsNearestRank(t *testing.T) {
	t.Parallel()
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample", ms(7), 99, 7 * time.Millisecond},
		{"median of four is the second", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of a hundred is the 99th", ms(seq(100)...), 99, 99 * time.Millisecond},
		{"p99 of a thousand is the 990th", ms(seq(1000)...), 99, 990 * time.Millisecond},
		{"p100 is the maximum", ms(1, 5, 9), 100, 9 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("Percentile(p%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestRunCountsSuccessesAndFailuresSeparately(t *testing.T) {
	t.Parallel()
	var window atomic.Int64
	// Each worker's odd requests are refused, so within the window (a contiguous
	// run of each worker's requests) OK and failures differ by at most one per worker.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("odd") == "1" {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	client, err := NewClient("", 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{
		Client: client, Workers: 2, Warmup: 20 * time.Millisecond, Duration: 200 * time.Millisecond, Expect: http.StatusOK,
		Window: func() func() {
			opened := time.Now()
			return func() { window.Store(int64(time.Since(opened))) }
		},
		Request: func(ctx context.Context, _ int, seq uint64) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/?odd=%d", srv.URL, seq%2), nil)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK == 0 || len(res.Latencies) != res.OK {
		t.Fatalf("OK = %d with %d latencies, want a positive count with one latency each", res.OK, len(res.Latencies))
	}
	if diff := cmp.Diff([]int{http.StatusTooManyRequests}, keys(res.Statuses)); diff != "" {
		t.Errorf("failure statuses (-want +got):\n%s", diff)
	}
	if window.Load() <= 0 {
		t.Error("the Window hook was not opened and closed")
	}
	if got := res.Failures(); got < res.OK-2 || got > res.OK+2 {
		t.Errorf("Failures() = %d, want about OK (%d): every second answer is a 429", got, res.OK)
	}
}

func TestRunFailsWhenARequestCannotBeBuilt(t *testing.T) {
	t.Parallel()
	client, err := NewClient("", 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Options{
		Client: client, Workers: 1, Duration: time.Second, Expect: http.StatusOK,
		Request: func(ctx context.Context, _ int, _ uint64) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, "BAD METHOD", "http://127.0.0.1:1", nil)
		},
	})
	if err == nil {
		t.Fatal("Run with an unbuildable request succeeded, want an error")
	}
}

func keys(m map[int]int) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestMergeAddsCountsWindowsAndLatencies(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	a := Result{OK: 3, Statuses: map[int]int{500: 1}, Window: 2 * time.Second, Latencies: []time.Duration{1 * ms, 4 * ms, 9 * ms}}
	b := Result{OK: 2, Statuses: map[int]int{500: 2, 0: 1}, Window: 3 * time.Second, Latencies: []time.Duration{2 * ms, 3 * ms}}
	got := Merge(a, b)
	want := Result{OK: 5, Statuses: map[int]int{500: 3, 0: 1}, Window: 5 * time.Second,
		Latencies: []time.Duration{1 * ms, 2 * ms, 3 * ms, 4 * ms, 9 * ms}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	if got.PerSecond() != 1 || got.Failures() != 4 || got.Percentile(50) != 3*ms {
		t.Errorf("merged rate %v, failures %d, p50 %v; want 1/s, 4, 3ms", got.PerSecond(), got.Failures(), got.Percentile(50))
	}
	if len(a.Latencies) != 3 || a.Latencies[1] != 4*ms {
		t.Errorf("Merge changed its input: %v", a.Latencies)
	}
}
