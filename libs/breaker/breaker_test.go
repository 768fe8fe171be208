package breaker_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/sony/gobreaker/v2"

	"github.com/paylane/paylane/libs/breaker"
)

func TestFailure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		err    error
		want   bool
	}{
		{0, errors.New("connection refused"), true},
		{0, context.DeadlineExceeded, true},
		{0, fmt.Errorf("calling: %w", context.Canceled), false},
		{500, nil, true}, {502, nil, true}, {503, nil, true}, {504, nil, true},
		{501, nil, false}, {505, nil, false},
		{200, nil, false}, {201, nil, false},
		{400, nil, false}, {401, nil, false}, {403, nil, false}, {404, nil, false},
		{409, nil, false}, {413, nil, false}, {422, nil, false}, {429, nil, false},
	} {
		if got := breaker.Failure(tt.status, tt.err); got != tt.want {
			t.Errorf("Failure(%d, %v) = %v, want %v", tt.status, tt.err, got, tt.want)
		}
	}
}

// answer calls s for key with an answer of status (err: a transport error).
func answer(s *breaker.Set[int], key string, status int, err error) (calls int, out error) {
	_, _, out = s.Do(key, func() (int, int, error) {
		calls++
		return status, status, err
	})
	return calls, out
}

func TestFourXXNeverOpensAndPassesThrough(t *testing.T) {
	t.Parallel()
	s := breaker.New[int](breaker.Settings{Name: "callee"})
	for _, status := range []int{400, 404, 409, 422, 429} {
		for range 20 {
			v, got, err := s.Do("A", func() (int, int, error) { return 7, status, nil })
			if err != nil || got != status || v != 7 {
				t.Fatalf("answer %d = (%d, %d, %v), want it passed through", status, v, got, err)
			}
		}
	}
	if st := s.State("A"); st != gobreaker.StateClosed {
		t.Errorf("after 100 4xx answers the breaker is %s, want closed", st)
	}
}

func TestOneTenantsFailuresOpenOnlyItsBreaker(t *testing.T) {
	t.Parallel()
	s := breaker.New[int](breaker.Settings{Name: "callee"})
	for range breaker.DefaultThreshold {
		if _, err := answer(s, "A", 500, nil); err != nil {
			t.Fatalf("a 500 answer returned an error %v; the status is the caller's to read", err)
		}
	}
	calls, err := answer(s, "A", 200, nil)
	if !errors.Is(err, breaker.ErrOpen) || calls != 0 {
		t.Fatalf("tenant A after 5 failures = %v with %d calls, want ErrOpen without a call", err, calls)
	}
	for _, key := range []string{"B", ""} {
		calls, err = answer(s, key, 201, nil)
		if err != nil || calls != 1 {
			t.Errorf("tenant %q while A's breaker is open = %v with %d calls, want the call made", key, err, calls)
		}
	}
}

func TestTransportErrorsCountAndCancellationDoesNot(t *testing.T) {
	t.Parallel()
	s := breaker.New[int](breaker.Settings{Name: "callee", Threshold: 2})
	for range 5 {
		if _, err := answer(s, "A", 0, context.Canceled); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call = %v", err)
		}
	}
	if st := s.State("A"); st != gobreaker.StateClosed {
		t.Fatalf("cancellations opened the breaker (%s)", st)
	}
	refused := errors.New("connection refused")
	answer(s, "A", 0, refused)
	if _, err := answer(s, "A", 0, context.DeadlineExceeded); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout = %v, want it returned", err)
	}
	if st := s.State("A"); st != gobreaker.StateOpen {
		t.Errorf("after two transport failures the breaker is %s, want open", st)
	}
}

func TestFourXXBetweenFailuresDoNotAddUp(t *testing.T) {
	t.Parallel()
	s := breaker.New[int](breaker.Settings{Name: "callee"})
	// 501 and 505 describe the request, not the callee's health.
	for range 10 {
		answer(s, "A", 503, nil)
		answer(s, "A", 422, nil)
		answer(s, "A", 501, nil)
	}
	if st := s.State("A"); st != gobreaker.StateClosed {
		t.Errorf("failures broken by healthy answers opened the breaker (%s)", st)
	}
}

func TestTheSetIsBounded(t *testing.T) {
	t.Parallel()
	s := breaker.New[int](breaker.Settings{Name: "callee", MaxKeys: 3, Threshold: 1})
	answer(s, "A", 503, nil)
	if s.State("A") != gobreaker.StateOpen {
		t.Fatal("A not open")
	}
	for _, k := range []string{"B", "C", "D"} {
		answer(s, k, 200, nil)
	}
	if n := s.Len(); n != 3 {
		t.Errorf("Len = %d, want 3", n)
	}
	// A was the least recently used: its breaker was dropped.
	if calls, err := answer(s, "A", 200, nil); err != nil || calls != 1 {
		t.Errorf("A after eviction = %v, %d calls; want a fresh closed breaker", err, calls)
	}
}

func TestTenantOf(t *testing.T) {
	t.Parallel()
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	jwt := enc(`{"alg":"EdDSA"}`) + "." + enc(`{"tenant_id":"t-42","abilities":["x"]}`) + ".sig"
	for _, tt := range []struct{ token, want string }{
		{jwt, "t-42"},
		{"Bearer " + jwt, "t-42"},
		{enc(`{}`) + "." + enc(`{"sub":"x"}`) + ".sig", ""},
		{"pl_12|secret", ""},
		{"a.!!!.c", ""},
		{"", ""},
	} {
		if got := breaker.TenantOf(tt.token); got != tt.want {
			t.Errorf("TenantOf(%.20q) = %q, want %q", tt.token, got, tt.want)
		}
	}
}

// The answer's status reaches the caller whatever the breaker counted.
func TestStatusesPassThrough(t *testing.T) {
	t.Parallel()
	s := breaker.New[int](breaker.Settings{Name: "callee"})
	for _, st := range []int{http.StatusOK, http.StatusUnprocessableEntity, http.StatusInternalServerError} {
		if _, got, err := s.Do("A", func() (int, int, error) { return 0, st, nil }); got != st || err != nil {
			t.Errorf("status %d came back as %d, %v", st, got, err)
		}
	}
}

func TestUnavailable(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]bool{0: true, 502: true, 503: true, 504: true, 500: false, 501: false, 404: false, 422: false, 429: false, 200: false} {
		if got := breaker.Unavailable(status); got != want {
			t.Errorf("Unavailable(%d) = %v, want %v", status, got, want)
		}
	}
}
