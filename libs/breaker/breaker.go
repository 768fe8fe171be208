// Package breaker holds the circuit breakers of the internal clients (the
// client packages services import to call each other): one rule for what
// counts against a callee's health, and a bounded set of breakers keyed by
// tenant, so one tenant's failing calls never fail another tenant's.
//
// The rule (Failure): a transport error, a timeout and a 5xx answer count
// as failures, except 501 and 505, which describe the request (a method or
// protocol the callee does not serve) rather than its health. Any 4xx is a
// healthy answer of the callee to the caller's input: it never counts and
// passes through to the caller as the 4xx. The caller giving up
// (context.Canceled) counts neither way.
//
// A Set keeps one github.com/sony/gobreaker/v2 breaker per key (the tenant
// of the call, see TenantOf) in a size-capped LRU map, built in the client
// value: a tenant whose calls fail five times in a row is failed fast for
// 10 s (ErrOpen), then one probe call decides; other tenants' calls go on.
// When the map is full, the least recently used tenant's breaker is
// dropped (that tenant starts again closed).
package breaker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/simplelru"
	"github.com/sony/gobreaker/v2"
)

// Defaults of Settings.
const (
	DefaultThreshold = 5
	DefaultOpenFor   = 10 * time.Second
	DefaultMaxKeys   = 10000
)

// ErrOpen is returned without calling when the key's breaker is open (or
// half-open with its probe in flight).
var ErrOpen = errors.New("circuit breaker open")

// errFailed and errExcluded carry a call's outcome through gobreaker.
var (
	errFailed   = errors.New("counted failure")
	errExcluded = errors.New("not counted")
)

// Failure reports whether a call's outcome counts against the callee's
// health: status is the answer's HTTP status (0 when none came), err the
// error of the exchange itself (transport, timeout), nil when an answer
// was read.
func Failure(status int, err error) bool {
	if err != nil {
		return !errors.Is(err, context.Canceled)
	}
	switch {
	case status == http.StatusNotImplemented, status == http.StatusHTTPVersionNotSupported:
		return false
	case status >= 500:
		return true
	}
	return false
}

// Unavailable reports whether a call's outcome says the callee cannot
// answer for now, so the caller answers 503 and the client retries: no
// answer (status 0: transport error, timeout, breaker open) or 502, 503,
// 504. Any other status is the callee's answer to this request, which a
// retry would only repeat.
func Unavailable(status int) bool {
	switch status {
	case 0, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Settings configure a Set; zero fields take the defaults.
type Settings struct {
	// Name names the callee in the breakers (and in OnStateChange).
	Name string
	// Threshold is how many failures in a row open a key's breaker (5).
	Threshold int
	// OpenFor is how long an open breaker fails fast before a probe (10 s).
	OpenFor time.Duration
	// MaxKeys bounds how many keys have a breaker at once (10,000).
	MaxKeys int
	// OnStateChange, when set, is told of every change of a key's breaker.
	OnStateChange func(name, key string, from, to gobreaker.State)
}

// Set is a bounded set of breakers keyed by tenant. It is safe for
// concurrent use.
type Set[T any] struct {
	st  Settings
	mu  sync.Mutex
	lru *simplelru.LRU
}

// New returns an empty set.
func New[T any](st Settings) *Set[T] {
	if st.Threshold <= 0 {
		st.Threshold = DefaultThreshold
	}
	if st.OpenFor <= 0 {
		st.OpenFor = DefaultOpenFor
	}
	if st.MaxKeys <= 0 {
		st.MaxKeys = DefaultMaxKeys
	}
	l, err := simplelru.NewLRU(st.MaxKeys, nil)
	if err != nil { // only for a size below 1, excluded above
		panic(err)
	}
	return &Set[T]{st: st, lru: l}
}

// get returns key's breaker, making it when the key has none.
func (s *Set[T]) get(key string) *gobreaker.CircuitBreaker[T] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.lru.Get(key); ok {
		return b.(*gobreaker.CircuitBreaker[T])
	}
	st := gobreaker.Settings{
		Name:         s.st.Name,
		Timeout:      s.st.OpenFor,
		ReadyToTrip:  func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= uint32(s.st.Threshold) },
		IsSuccessful: func(err error) bool { return !errors.Is(err, errFailed) },
		IsExcluded:   func(err error) bool { return errors.Is(err, errExcluded) },
	}
	if f := s.st.OnStateChange; f != nil {
		st.OnStateChange = func(name string, from, to gobreaker.State) { f(name, key, from, to) }
	}
	b := gobreaker.NewCircuitBreaker[T](st)
	s.lru.Add(key, b)
	return b
}

// Do runs call through key's breaker. call returns its value, the HTTP
// status of the answer (0 when none came) and the error of the exchange;
// Do returns them as they were, the outcome counted by Failure. When key's
// breaker is open, call is not made and the error wraps ErrOpen.
func (s *Set[T]) Do(key string, call func() (T, int, error)) (T, int, error) {
	var (
		status  int
		callErr error
	)
	v, err := s.get(key).Execute(func() (T, error) {
		var v T
		v, status, callErr = call()
		switch {
		case callErr != nil && errors.Is(callErr, context.Canceled):
			return v, errExcluded
		case Failure(status, callErr):
			return v, errFailed
		}
		return v, nil
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return v, 0, fmt.Errorf("%w (%s, %s): %w", ErrOpen, s.st.Name, key, err)
	}
	return v, status, callErr
}

// State returns key's breaker state (closed for a key without one).
func (s *Set[T]) State(key string) gobreaker.State {
	s.mu.Lock()
	b, ok := s.lru.Peek(key)
	s.mu.Unlock()
	if !ok {
		return gobreaker.StateClosed
	}
	return b.(*gobreaker.CircuitBreaker[T]).State()
}

// Len returns how many keys have a breaker.
func (s *Set[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}
